"""A million memories: set-based load, index build, recall, consolidation, detection and RSS.

    .venv/bin/python -m bench.million                                   # 1,000,000 / 3,000,000 / 1,000 owners
    .venv/bin/python -m bench.million --memories 20000 --associations 60000 --owners 50 --graph-check
    .venv/bin/python -m bench.million --memories 200000 --associations 600000 --owners 200 --partitions 8

Re-creates `memsite_million` (`--database-url`) and loads it with set-based SQL only: staging tables
filled with COPY, then `INSERT ... SELECT` over `generate_series`. Owners are `--owners` users whose
sizes follow Zipf's law with exponent 1 (owner of rank r holds N·(1/r)/H(owners) memories, the
rounding remainder going to rank 1: at 1,000,000 over 1,000 owners the five largest hold 134,072 /
66,796 / 44,530 / 33,398 / 26,718, the median owner 266 and the smallest 133). Each memory gets
every row the service gives a stored memory: the row itself (insertion `sequence` from its default,
full-text vector from its generated column), its `store` quality assessment (the service's own
`quality.metrics.evaluate_memories`), a done enrichment record, and its `:Memory` vertex; the
associations (`--associations`, a multiple of `--memories`: every memory is the source of the same
number, to distinct memories of its owner; 80% authorable types, 20% SIMILAR_TO / PRECEDED_BY of
origin enrichment, strength uniform in [0.3, 1)) and their edges. Vertices and edges are written by
`graph.age.rebuild_from_tables`, the service's own set-based graph load. Foreign-key triggers are
off for the loading session (`session_replication_role = replica`); secondary indexes are dropped
before and built after, each timed (HNSW on its own).

Vectors are precomputed: `--pool` distinct generated sentences (bench.seed's templates) are
embedded once with the real model (cached in bench/results/); a memory's content is one pool
sentence, a context clause and its number, its vector that sentence's vector plus one of
`--noise-vectors` seeded Gaussian vectors (σ 0.015 per dimension), re-normalized in SQL.

Then, with `make run`'s server (gunicorn, 2 uvicorn workers) on `--port`: recall over HTTP for
the largest owner (target p95 ≤ 60 ms, query embedding included), the same with
`expand_relations=true&max_hops=2` (target p95 ≤ 150 ms), plain recall for a median owner; storing
`--new-memories` new memories over `POST /memory/batch` spread over the 10 largest owners; a job
worker draining their enrichment for at most `--worker-seconds`; the RSS and CPU time of the web
workers and the job worker; inconsistency detection of the new memories against the rest
(`changed_since`, target ≤ 60 s); one real consolidation run (target ≤ 5 minutes).
`--partitions N` makes `memories_memory` hash-partitioned by owner into N partitions before the
indexes are built (rows of the plain table stay as the target of the other tables' foreign keys,
so only recall and consolidation are measured then).
"""

import argparse
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from urllib.parse import urlsplit

import numpy as np

from bench.client import (
    ROOT,
    Client,
    database_url,
    emit,
    ensure_database,
    issue_token,
    log,
    machine,
    running_server,
    server_environment,
)
from bench.recall_latency import measure, recall_params
from bench.seed import CLAUSES, DIMENSIONS, generate_pool, generate_queries, pool_vectors, slots
from bench.store_throughput import distinct_items, pending, start_worker

DATABASE_URL = database_url("memsite_million")
NOISE = 0.015
CLAUSE_COUNT = 1000
USER_TYPES = ["RELATES_TO", "LEADS_TO", "PART_OF", "REINFORCES", "DERIVED_FROM", "EXEMPLIFIES"]
ENRICHMENT_TYPES = ["SIMILAR_TO", "PRECEDED_BY"]
TARGETS = {"recall_p95_ms": 60, "recall_2hop_p95_ms": 150, "consolidation_s": 300, "detection_s": 60}


def uniform(key, salt):
    """SQL: a deterministic value in [0, 1) from an integer expression and a salt."""
    return f"((hashint8extended(({key})::bigint, {salt}) & 2147483647)::float8 / 2147483648.0)"


def zipf_sizes(memories, owners):
    weights = 1 / np.arange(1, owners + 1)
    sizes = np.floor(memories * weights / weights.sum()).astype(int)
    sizes[0] += memories - sizes.sum()
    return [int(size) for size in sizes]


class Loader:
    """The bulk load, on Django's own connection (autocommit), step by step, each step timed."""

    def __init__(self, args):
        from django.db import connection

        connection.ensure_connection()
        self.conn = connection.connection
        self.args = args
        self.timings = {}

    def run(self, name, sql, params=None):
        started = time.perf_counter()
        cursor = self.conn.execute(sql, params)
        self.timings[name] = round(time.perf_counter() - started, 1)
        log(f"  {name}: {self.timings[name]} s ({cursor.rowcount:,} rows)")
        return cursor

    def staging(self, pool, vectors):
        args = self.args
        rng = np.random.default_rng(args.seed)
        noise = rng.normal(0, NOISE, size=(args.noise_vectors, DIMENSIONS)).astype(np.float32)
        clauses = [CLAUSES[int(rng.integers(len(CLAUSES)))].format(**slots(rng)) for _ in range(CLAUSE_COUNT)]
        started = time.perf_counter()
        self.conn.execute(
            "CREATE UNLOGGED TABLE million_pool (k int PRIMARY KEY, text text, memory_type text, "
            "tags varchar[], embedding vector)"
        )
        self.conn.execute("CREATE UNLOGGED TABLE million_noise (j int PRIMARY KEY, noise vector)")
        self.conn.execute("CREATE UNLOGGED TABLE million_clause (c int PRIMARY KEY, text text)")
        with self.conn.cursor().copy("COPY million_pool FROM STDIN") as copy:
            for k, ((text, memory_type, tags), vector) in enumerate(zip(pool, vectors, strict=True)):
                copy.write_row((k, text, memory_type, tags, _vector_text(vector)))
        with self.conn.cursor().copy("COPY million_noise FROM STDIN") as copy:
            for j, vector in enumerate(noise):
                copy.write_row((j, _vector_text(vector)))
        with self.conn.cursor().copy("COPY million_clause FROM STDIN") as copy:
            for c, text in enumerate(clauses):
                copy.write_row((c, text))
        self.timings["staging_copy"] = round(time.perf_counter() - started, 1)

    def owners(self):
        sizes = zipf_sizes(self.args.memories, self.args.owners)
        self.conn.execute("CREATE UNLOGGED TABLE million_owner (rank int, owner_id int, n int, start bigint)")
        with self.conn.cursor().copy("COPY million_owner (rank, n, start) FROM STDIN") as copy:
            start = 0
            for rank, size in enumerate(sizes, 1):
                copy.write_row((rank, size, start))
                start += size
        self.run(
            "users",
            "INSERT INTO auth_user (password, is_superuser, username, first_name, last_name, email, "
            "is_staff, is_active, date_joined) "
            "SELECT '!', false, 'million-' || lpad(rank::text, 4, '0'), '', '', '', false, true, now() "
            "FROM million_owner ORDER BY rank",
        )
        self.conn.execute(
            "UPDATE million_owner o SET owner_id = u.id FROM auth_user u "
            "WHERE u.username = 'million-' || lpad(o.rank::text, 4, '0')"
        )
        return sizes

    def rows(self):
        """The narrow plan of every memory (owner, index within the owner, id, time, draws), in
        creation order across owners, which is the order the memories are inserted in."""
        a = self.args
        g = "o.start + k"
        self.run(
            "plan_rows",
            f"""
CREATE UNLOGGED TABLE million_row AS
SELECT {g} AS g, o.owner_id, k, o.n, gen_random_uuid() AS id,
       now() - interval '365 days' * (1 - (k + 0.5) / o.n) AS created_at,
       floor({uniform(g, 1)} * {a.pool})::int AS pool,
       floor({uniform(g, 2)} * {a.noise_vectors})::int AS noise,
       floor({uniform(g, 3)} * {CLAUSE_COUNT})::int AS clause,
       round((0.2 + 0.6 * {uniform(g, 4)})::numeric, 3)::float8 AS importance,
       CASE WHEN {uniform(g, 5)} < 0.7 THEN 'user_input' WHEN {uniform(g, 5)} < 0.85 THEN 'agent'
            WHEN {uniform(g, 5)} < 0.95 THEN 'tool_output' ELSE 'bootstrapped' END AS source_type,
       {uniform(g, 6)} < 0.3 AS explicit_draw,
       CASE WHEN {uniform(g, 7)} < 0.85 THEN '{{}}'::varchar[]
            WHEN {uniform(g, 7)} < 0.95 THEN '{{bench-source-0}}'::varchar[]
            ELSE '{{bench-source-0,bench-source-1}}'::varchar[] END AS sources
FROM million_owner o CROSS JOIN LATERAL generate_series(0, o.n - 1) AS k
ORDER BY created_at
""",
        )

    def memories(self):
        self.run(
            "memories",
            """
INSERT INTO memories_memory (
    id, owner_id, content, content_hash, embedding, tags, memory_type, importance, metadata,
    source_type, source_id, is_explicit, confidence, corroborating_sources, created_at, entered_at,
    updated_at, provenance_updated_at, valid_from, access_count, quality_overall, quality_score,
    quality_accuracy, quality_completeness, quality_consistency, quality_timeliness, quality_relevance,
    quality_boost_applied, quality_boost_reason, protected, archive_reason)
SELECT r.id, r.owner_id, c.content, encode(sha256(convert_to(lower(c.content), 'UTF8')), 'hex'),
       l2_normalize(p.embedding + z.noise), p.tags, p.memory_type, r.importance,
       '{"source": "bench.million"}', r.source_type, '', r.source_type = 'user_input' AND r.explicit_draw,
       0.5, r.sources, r.created_at, r.created_at, r.created_at, r.created_at, r.created_at, 0,
       0, 0, 0, 0, 0, 0, 0, false, '', false, ''
FROM million_row r
JOIN million_pool p ON p.k = r.pool
JOIN million_noise z ON z.j = r.noise
JOIN million_clause cl ON cl.c = r.clause
CROSS JOIN LATERAL (SELECT p.text || ' ' || cl.text || ' (#' || r.g || ')' AS content) c
""",
        )

    def evaluation(self):
        from django.db import transaction

        from quality.metrics import evaluate_memories

        started = time.perf_counter()
        with transaction.atomic():
            count = evaluate_memories(None, "store")
        self.timings["store_evaluation"] = round(time.perf_counter() - started, 1)
        log(f"  store_evaluation: {self.timings['store_evaluation']} s ({count:,} memories)")

    def enrichment(self):
        self.run(
            "enrichment_records",
            "INSERT INTO graph_enrichment (memory_id, status, attempts, error, updated_at) "
            "SELECT id, 'done', 1, '', created_at FROM million_row",
        )

    def associations(self):
        per = self.args.associations // self.args.memories
        user = "ARRAY[" + ", ".join(f"'{name}'" for name in USER_TYPES) + "]"
        enrichment = "ARRAY[" + ", ".join(f"'{name}'" for name in ENRICHMENT_TYPES) + "]"
        key = f"s.g * {per} + j"
        self.conn.execute("CREATE INDEX ON million_row (owner_id, k)")
        self.run(
            "associations",
            f"""
INSERT INTO graph_association
    (source_id, target_id, relation_type, strength, properties, origin, created_at, updated_at)
SELECT s.id, t.id, x.relation_type, round((0.3 + 0.7 * {uniform(key, 13)})::numeric, 3)::float8, '{{}}',
       x.origin, s.created_at, s.created_at
FROM million_row s
CROSS JOIN generate_series(0, {per} - 1) AS j
CROSS JOIN LATERAL (SELECT (s.n - 1) / {per} AS span, {uniform(key, 11)} AS kind) h
JOIN million_row t ON t.owner_id = s.owner_id
    AND t.k = (s.k + 1 + j * h.span + floor({uniform(key, 12)} * h.span)::int) % s.n
CROSS JOIN LATERAL (
    SELECT CASE WHEN h.kind < 0.8 THEN ({user})[1 + floor(h.kind / 0.8 * {len(USER_TYPES)})::int]
                ELSE ({enrichment})[1 + floor((h.kind - 0.8) / 0.2 * {len(ENRICHMENT_TYPES)})::int] END
               AS relation_type,
           CASE WHEN h.kind < 0.8 THEN 'user' ELSE 'enrichment' END AS origin
) x
""",
        )

    def graph(self):
        from django.db import transaction

        from graph.age import rebuild_from_tables

        started = time.perf_counter()
        with transaction.atomic():
            counts = rebuild_from_tables()
        self.timings["graph_vertices_and_edges"] = round(time.perf_counter() - started, 1)
        log(f"  graph: {self.timings['graph_vertices_and_edges']} s {counts}")
        return counts

    def partition(self, partitions):
        """Swap in a copy of memories_memory hash-partitioned by owner (same columns and rows)."""
        columns = [
            name
            for (name,) in self.conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = 'memories_memory' "
                "AND is_generated = 'NEVER' ORDER BY ordinal_position"
            )
        ]
        listed = ", ".join(columns)
        self.conn.execute(
            "CREATE TABLE memories_memory_part (LIKE memories_memory INCLUDING DEFAULTS INCLUDING "
            "CONSTRAINTS INCLUDING GENERATED INCLUDING STORAGE) PARTITION BY HASH (owner_id)"
        )
        self.conn.execute("ALTER TABLE memories_memory_part ADD PRIMARY KEY (id, owner_id)")
        # Each partition gets the plain table's storage parameters (fillfactor, toast_tuple_target).
        (options,) = self.conn.execute(
            "SELECT array_to_string(reloptions, ', ') FROM pg_class WHERE oid = 'memories_memory'::regclass"
        ).fetchone()
        for remainder in range(partitions):
            self.conn.execute(
                f"CREATE TABLE memories_memory_p{remainder} PARTITION OF memories_memory_part "
                f"FOR VALUES WITH (MODULUS {partitions}, REMAINDER {remainder}) WITH ({options})"
            )
        self.run(
            "partition_copy",
            f"INSERT INTO memories_memory_part ({listed}) "
            f"SELECT {listed} FROM memories_memory ORDER BY sequence",
        )
        self.conn.execute("ALTER TABLE memories_memory RENAME TO memories_memory_plain")
        self.conn.execute("ALTER TABLE memories_memory_part RENAME TO memories_memory")

    def drop_indexes(self, tables):
        dropped = []
        for table in tables:
            rows = self.conn.execute(
                "SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid) FROM pg_index i "
                "WHERE i.indrelid = %s::regclass AND NOT i.indisprimary AND NOT i.indisunique",
                [table],
            ).fetchall()
            for name, definition in rows:
                self.conn.execute(f"DROP INDEX {name}")
                dropped.append((table, name, definition))
        return dropped

    def create_indexes(self, dropped):
        seconds = {}
        for _, name, definition in dropped:
            started = time.perf_counter()
            self.conn.execute(definition)
            seconds[name] = round(time.perf_counter() - started, 1)
            log(f"  index {name}: {seconds[name]} s")
        return seconds


def _vector_text(vector):
    return "[" + ",".join(f"{value:.7g}" for value in vector) + "]"


def label_tables():
    from graph.models import RELATION_PROPERTIES

    return ['memsite."Memory"', *(f'memsite."{label}"' for label in RELATION_PROPERTIES)]


def load(args):
    """Build the whole data set; answers the load report."""
    loader = Loader(args)
    conn = loader.conn
    conn.execute(f"SET maintenance_work_mem = '{args.maintenance_work_mem}'")
    conn.execute(f"SET max_parallel_maintenance_workers = {args.parallel_workers}")
    conn.execute("SET work_mem = '256MB'")
    conn.execute("SET session_replication_role = replica")
    pool = generate_pool(args.pool, args.seed)
    vectors = pool_vectors(pool, args.seed)
    started = time.perf_counter()
    log("Staging tables (pool, noise, clauses) ...")
    loader.staging(pool, vectors)
    sizes = loader.owners()
    loader.rows()
    tables = [
        "memories_memory",
        "quality_qualityassessment",
        "graph_association",
        "graph_enrichment",
        *label_tables(),
    ]
    dropped = loader.drop_indexes(tables)
    log(f"Loading {args.memories:,} memories, {args.associations:,} associations ...")
    loader.memories()
    loader.evaluation()
    loader.enrichment()
    loader.associations()
    graph_counts = loader.graph()
    loader.run("vacuum_analyze_memories", "VACUUM ANALYZE memories_memory")
    if args.partitions:
        loader.partition(args.partitions)
    load_seconds = time.perf_counter() - started
    log("Building indexes ...")
    index_started = time.perf_counter()
    index_seconds = loader.create_indexes(dropped)
    index_total = time.perf_counter() - index_started
    conn.execute("RESET session_replication_role")
    for table in ["million_pool", "million_noise", "million_clause", "million_row"]:
        conn.execute(f"DROP TABLE {table}")
    loader.run("analyze", "ANALYZE")
    return {
        "owner_sizes": {
            "distribution": "Zipf, exponent 1: rank r holds N*(1/r)/H(owners), remainder to rank 1",
            "largest": sizes[:5],
            "median": sizes[len(sizes) // 2],
            "smallest": sizes[-1],
        },
        "graph": graph_counts,
        "seconds_load_without_indexes": round(load_seconds, 1),
        "seconds_indexes": round(index_total, 1),
        "seconds_total": round(load_seconds + index_total, 1),
        "steps_seconds": loader.timings,
        "index_seconds": index_seconds,
        "hnsw_build_seconds": index_seconds.get("memory_live_embedding_hnsw"),
        "settings": {
            "maintenance_work_mem": args.maintenance_work_mem,
            "max_parallel_maintenance_workers": args.parallel_workers,
            "foreign_key_triggers": "off while loading (session_replication_role = replica)",
        },
    }


def sizes(conn):
    rows = conn.execute(
        """
SELECT pg_database_size(current_database()),
       COALESCE((SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('memories_memory')),
                pg_total_relation_size('memories_memory')),
       (SELECT sum(pg_relation_size(i.indexrelid)) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE c.relname = 'memory_live_embedding_hnsw' OR c.relname LIKE 'memories_memory_p%_embedding_idx'),
       pg_total_relation_size('graph_association'),
       pg_total_relation_size('quality_qualityassessment'),
       (SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'memsite' AND c.relkind = 'r')
"""
    ).fetchone()
    gb = [round(float(value or 0) / 2**30, 2) for value in rows]
    return dict(
        zip(
            [
                "database_gb",
                "memory_table_gb",
                "hnsw_index_gb",
                "associations_gb",
                "assessments_gb",
                "graph_gb",
            ],
            gb,
            strict=True,
        )
    )


def proc_status(pid):
    """RSS, peak RSS (MB) and CPU seconds of one process, from /proc."""
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    with open(f"/proc/{pid}/stat") as stat:
        parts = stat.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return {
        "pid": pid,
        "ppid": int(fields["PPid"]),
        "rss_mb": round(int(fields["VmRSS"].split()[0]) / 1024, 1),
        "peak_rss_mb": round(int(fields["VmHWM"].split()[0]) / 1024, 1),
        "cpu_seconds": round((int(parts[11]) + int(parts[12])) / ticks, 1),
    }


def gunicorn_processes(port):
    """The gunicorn master and workers bound to 127.0.0.1:`port`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                command = handle.read().replace(b"\0", b" ").decode()
            if "gunicorn" in command and f"127.0.0.1:{port}" in command:
                found.append(proc_status(int(entry)))
        except OSError:
            continue
    pids = {process["pid"] for process in found}
    return [process for process in found if process["ppid"] in pids]


def owner_token(conn, database_url, rank):
    (username, count) = conn.execute(
        "SELECT u.username, count(*) FROM auth_user u JOIN memories_memory m ON m.owner_id = u.id "
        "WHERE u.username = 'million-' || lpad(%s::text, 4, '0') GROUP BY u.username",
        [rank],
    ).fetchone()
    token, _ = issue_token(database_url, username)
    return token, username, count


def timed(function, *args, **kwargs):
    started = time.perf_counter()
    result = function(*args, **kwargs)
    return result, round(time.perf_counter() - started, 2)


def store_new(base_url, tokens, count, batch, random_seed):
    """`count` new memories over POST /memory/batch, spread round-robin over the owners' tokens."""
    items = distinct_items(count, random_seed)
    clients = [Client(base_url, token) for token in tokens]
    latencies = []
    for number, start in enumerate(range(0, count, batch)):
        _, elapsed = clients[number % len(clients)].expect(
            "POST", "/memory/batch", body={"memories": items[start : start + batch]}
        )
        latencies.append(elapsed)
    for client in clients:
        client.close()
    seconds = sum(latencies) / 1000
    return {
        "memories": count,
        "batch": batch,
        "seconds": round(seconds, 1),
        "memories_per_second": round(count / seconds, 1),
        "batch_p50_ms": round(float(np.percentile(latencies, 50))),
    }


def worker_run(database_url, seconds):
    """One job worker for at most `seconds` (or until the enrichment queue is empty): RSS and CPU."""
    before = pending(database_url)
    worker = start_worker(database_url)
    started = time.perf_counter()
    peak = None
    while time.perf_counter() - started < seconds:
        time.sleep(2)
        peak = proc_status(worker.pid)
        if pending(database_url) == 0:
            break
    elapsed = time.perf_counter() - started
    worker.terminate()
    worker.wait(timeout=120)
    after = pending(database_url)
    return {
        "pending_before": before,
        "pending_after": after,
        "enriched": before - after,
        "seconds": round(elapsed, 1),
        "memories_per_second": round((before - after) / elapsed, 1),
        "process": peak,
    }


def measure_http(args, database_url, conn, report):
    from bench.client import machine as machine_now

    big_token, big_name, big_count = owner_token(conn, database_url, 1)
    (owners,) = conn.execute("SELECT count(*) FROM auth_user WHERE username LIKE 'million-%'").fetchone()
    median_rank = owners // 2
    median_token, median_name, median_count = owner_token(conn, database_url, median_rank)
    plain = recall_params(generate_queries(args.queries), {})
    expanded = recall_params(generate_queries(args.queries), {"expand_relations": "true", "max_hops": 2})
    with running_server(database_url, args.port, 2) as base_url:
        load_before = machine_now()["load_average_1_5_15"]
        report["recall_largest_owner"] = {
            "owner": big_name,
            "memories": big_count,
            "load_before": load_before,
            **measure(base_url, big_token, plain),
            "load_after": machine_now()["load_average_1_5_15"],
        }
        log(f"recall ({big_count:,} memories): {report['recall_largest_owner']['http']}")
        report["recall_2hop_largest_owner"] = {
            "load_before": machine_now()["load_average_1_5_15"],
            **measure(base_url, big_token, expanded),
            "load_after": machine_now()["load_average_1_5_15"],
        }
        log(f"recall 2-hop: {report['recall_2hop_largest_owner']['http']}")
        report["recall_median_owner"] = {
            "owner": median_name,
            "memories": median_count,
            **measure(base_url, median_token, plain),
            "load_after": machine_now()["load_average_1_5_15"],
        }
        log(f"recall median owner ({median_count:,}): {report['recall_median_owner']['http']}")
        report["web_workers_after_recall"] = gunicorn_processes(args.port)
        if args.new_memories and not args.partitions:
            tokens = [owner_token(conn, database_url, rank)[0] for rank in range(1, 11)]
            report["changed_since"] = datetime.now(UTC).isoformat()
            report["store_new"] = {
                "load_before": machine_now()["load_average_1_5_15"],
                # Seeded by the table's size, so that a run with --reuse stores contents not yet there.
                **store_new(base_url, tokens, args.new_memories, 500, _memory_count(conn)),
                "load_after": machine_now()["load_average_1_5_15"],
            }
            log(f"stored: {report['store_new']}")
            report["web_workers_after_store"] = gunicorn_processes(args.port)
    if args.new_memories and not args.partitions and args.worker_seconds:
        report["queue_worker"] = {
            "load_before": machine_now()["load_average_1_5_15"],
            **worker_run(database_url, args.worker_seconds),
            "load_after": machine_now()["load_average_1_5_15"],
        }
        log(f"worker: {report['queue_worker']}")


def measure_detection(report):
    from quality.detection import detect_inconsistencies

    since = datetime.fromisoformat(report["changed_since"])
    load_before = machine()["load_average_1_5_15"]
    result, seconds = timed(detect_inconsistencies, changed_since=since)
    report["detection_new_memories"] = {
        "changed_since": report["changed_since"],
        "seconds": seconds,
        "target_seconds": TARGETS["detection_s"],
        "load_before": load_before,
        "load_after": machine()["load_average_1_5_15"],
        **result.as_dict(),
    }
    log(f"detection of the new memories: {seconds} s {result.as_dict()}")


def measure_consolidation(report):
    from bench.consolidation import timed_run

    load_before = machine()["load_average_1_5_15"]
    run = timed_run(dry_run=False)
    report["consolidation"] = {
        "target_seconds": TARGETS["consolidation_s"],
        "load_before": load_before,
        "load_after": machine()["load_average_1_5_15"],
        **run,
    }
    log(f"consolidation: {run['seconds_total']} s {run['phase_ms']}")


def graph_check(database_url):
    output, seconds = timed(
        subprocess.run,
        [sys.executable, "manage.py", "graph_check"],
        cwd=ROOT,
        env=server_environment(database_url),
        capture_output=True,
        text=True,
        check=False,
    )
    return {"returncode": output.returncode, "output": output.stdout.strip()[-2000:], "seconds": seconds}


def hash_check(conn):
    """The content hash the load wrote equals the service's, on a sample."""
    from memories.services import content_hash

    rows = conn.execute("SELECT content, content_hash FROM memories_memory LIMIT 200").fetchall()
    return all(content_hash(content) == digest for content, digest in rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=1_000_000)
    parser.add_argument("--associations", type=int, default=3_000_000, help="a multiple of --memories")
    parser.add_argument("--owners", type=int, default=1000)
    parser.add_argument("--database-url", default=DATABASE_URL)
    parser.add_argument("--reuse", action="store_true", help="measure the loaded database as it is")
    parser.add_argument("--pool", type=int, default=16384, help="sentences embedded for real")
    parser.add_argument("--noise-vectors", type=int, default=4096)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--partitions", type=int, default=0, help="hash-partition the memory table by owner")
    parser.add_argument("--maintenance-work-mem", default="3GB")
    parser.add_argument("--parallel-workers", type=int, default=2, help="max_parallel_maintenance_workers")
    parser.add_argument("--port", type=int, default=8144)
    parser.add_argument("--queries", type=int, default=300, help="timed recall requests per measurement")
    parser.add_argument("--new-memories", type=int, default=10_000, help="stored over HTTP, then detected")
    parser.add_argument("--worker-seconds", type=int, default=90, help="job worker time limit (RSS)")
    parser.add_argument("--load-only", action="store_true", help="stop after the load (measure with --reuse)")
    parser.add_argument("--skip-consolidation", action="store_true")
    parser.add_argument("--skip-http", action="store_true", help="no recall, store, worker or detection")
    parser.add_argument("--graph-check", action="store_true", help="run manage.py graph_check after the load")
    args = parser.parse_args()
    per, remainder = divmod(args.associations, args.memories)
    if remainder or zipf_sizes(args.memories, args.owners)[-1] <= per:
        parser.error("--associations must be a multiple of --memories, below the smallest owner's size")

    report = {"benchmark": "million", "database": urlsplit(args.database_url).path.lstrip("/")}
    report["size"] = {"memories": args.memories, "associations": args.associations, "owners": args.owners}
    if not args.reuse:
        ensure_database(args.database_url, fresh=True)
    os.environ.update(server_environment(args.database_url))
    os.environ.setdefault("MEMSITE_LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.db import connection

    if not args.reuse:
        report["load"] = {"load_before": machine()["load_average_1_5_15"], **load(args)}
        report["load"]["load_after"] = machine()["load_average_1_5_15"]
    connection.ensure_connection()
    conn = connection.connection
    report["partitions"] = args.partitions
    report["sizes"] = sizes(conn)
    report["content_hash_matches_service"] = hash_check(conn)
    report["vectors"] = (
        f"precomputed: real all-MiniLM-L6-v2 embeddings of {args.pool} generated sentences; each memory "
        f"its sentence's vector + one of {args.noise_vectors} seeded N(0, {NOISE}) vectors, "
        "re-normalized in SQL (l2_normalize)"
    )
    log(f"sizes: {report['sizes']}")
    if args.graph_check:
        report["graph_check"] = graph_check(args.database_url)
        log(f"graph_check: {report['graph_check']}")
    connection.close()
    if args.load_only:
        report["machine"] = machine()
        emit(report)
        return
    if not args.skip_http:
        measure_http(args, args.database_url, conn=_fresh(args.database_url), report=report)
    if "changed_since" in report:
        measure_detection(report)
    if not args.skip_consolidation:
        measure_consolidation(report)
    report["targets"] = TARGETS
    report["machine"] = machine()
    emit(report)


def _memory_count(conn):
    return conn.execute("SELECT count(*) FROM memories_memory").fetchone()[0]


def _fresh(database_url):
    import psycopg

    return psycopg.connect(database_url, autocommit=True)


if __name__ == "__main__":
    main()
