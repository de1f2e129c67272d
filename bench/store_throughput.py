"""Store throughput over HTTP, enrichment lag on job workers, and 1 vs 2 workers draining a queue.

    .venv/bin/python -m bench.store_throughput [--prefill 10000] [--batches 4] [--singles 200]
        [--lag-seconds 20] [--lag-rate 50] [--drain-memories 1000] [--drain-workers 1,2]

Runs against a fresh database of its own (`memsite_bench_store` by default; `--keep` reuses it),
through gunicorn (2 workers) on its own port. `--prefill` first adds that many memories for the
benchmark user with bench.seed (precomputed vectors), so stores meet a realistic table. Every
timed memory is a distinct generated sentence: the server embeds each one with the real model,
evaluates its quality, writes its vertex and queues its enrichment job, as for any client.

1. Stores (no job worker running, so enrichment stays queued): batches of 500, then single stores.
2. Drain: for each count in `--drain-workers`, `--drain-memories` memories are stored in batches
   of `--drain-batch` with no worker running, then that many `procrastinate worker --one-shot`
   processes start together; the time until all have exited is the time to drain the queue.
3. Lag: one worker runs while single stores arrive at `--lag-rate` per second for `--lag-seconds`;
   the lag of a memory is from its row's `created_at` to its enrichment being recorded done.

Targets: batch of 500 >= 300 memories/s; single store p50 <= 25 ms and p95 <= 60 ms; enrichment
lag p95 <= 5 s at 50 stores/s.
"""

import argparse
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import psycopg

from bench.client import (
    BENCH_PORT,
    Client,
    database_url,
    emit,
    ensure_database,
    issue_token,
    log,
    machine,
    running_server,
    start_worker,
    summarize_ms,
)
from bench.seed import CLAUSES, generate_pool, seed, slots

STORE_DATABASE_URL = database_url("memsite_bench_store")
BATCH_SIZE = 500
USERNAME = "bench-store"
TARGETS = {
    "batch_memories_per_second": 300,
    "single_p50_ms": 25,
    "single_p95_ms": 60,
    "enrichment_lag_p95_s": 5,
}
LAG_SQL = """
SELECT extract(epoch FROM e.updated_at - m.created_at)
FROM graph_enrichment e JOIN memories_memory m ON m.id = e.memory_id
WHERE e.memory_id = ANY(%s::uuid[]) AND e.status = 'done'
"""
PENDING_SQL = "SELECT count(*) FROM graph_enrichment WHERE status = 'pending'"
# From the first enrichment job a worker started since `%s` to the last one it finished: the drain
# without the workers' start-up (imports, connections), on the database's clock.
WORKING_SQL = """
SELECT extract(epoch FROM max(e.at) FILTER (WHERE e.type IN ('succeeded', 'failed'))
                          - min(e.at) FILTER (WHERE e.type = 'started'))
FROM procrastinate_events e JOIN procrastinate_jobs j ON j.id = e.job_id
WHERE e.at >= %s AND j.task_name = 'graph.tasks.enrich_memories'
"""


def distinct_items(count, random_seed):
    """`count` distinct memory payloads built from generated sentences and context clauses."""
    rng = np.random.default_rng(random_seed)
    items = []
    for index, (text, memory_type, tags) in enumerate(generate_pool(count, random_seed)):
        clause = CLAUSES[int(rng.integers(len(CLAUSES)))].format(**slots(rng))
        items.append(
            {
                "content": f"{text} {clause}",
                "tags": tags,
                "type": memory_type,
                "importance": round(float(rng.uniform(0.2, 0.9)), 2),
                "metadata": {"bench": "store", "n": index},
            }
        )
    return items


def stored_count(data):
    for key in ("stored_count", "created_count", "count"):
        if isinstance(data.get(key), int):
            return data[key]
    return len(data.get("results", data.get("memories", [])))


def pending(database_url):
    with psycopg.connect(database_url) as conn:
        return conn.execute(PENDING_SQL).fetchone()[0]


def drain(database_url, client, items, batch, workers, server_env):
    """Store `items` with no worker running, then time `workers` one-shot workers emptying the queue."""
    for start in range(0, len(items), batch):
        client.expect("POST", "/memory/batch", body={"memories": items[start : start + batch]})
    queued = pending(database_url)
    with psycopg.connect(database_url) as conn:
        database_now = conn.execute("SELECT now()").fetchone()[0]
    started = time.perf_counter()
    processes = [start_worker(database_url, "--one-shot", extra_env=server_env) for _ in range(workers)]
    for process in processes:
        process.wait(timeout=3600)
    seconds = time.perf_counter() - started
    left = pending(database_url)
    with psycopg.connect(database_url) as conn:
        working = float(conn.execute(WORKING_SQL, [database_now]).fetchone()[0] or seconds)
    log(
        f"drain with {workers} worker(s): {queued} memories in {seconds:.1f} s, {working:.1f} s from "
        f"the first job started to the last finished ({left} left pending)"
    )
    return {
        "workers": workers,
        "memories": queued,
        "jobs": -(-len(items) // batch),
        "seconds_including_worker_start": round(seconds, 2),
        "seconds_working": round(working, 2),
        "memories_per_second": round(queued / working, 1),
        "left_pending": left,
    }


def lag(database_url, base_url, token, items, rate, server_env):
    """Single stores at `rate` per second while one worker runs; lag percentiles in seconds."""
    worker = start_worker(database_url, extra_env=server_env)
    ids, lock, local = [], threading.Lock(), threading.local()
    started = time.perf_counter() + 2

    def send(index, item):
        time.sleep(max(0.0, started + index / rate - time.perf_counter()))
        if not hasattr(local, "client"):
            local.client = Client(base_url, token)
        data, _ = local.client.expect("POST", "/memory", statuses=(201,), body=item)
        with lock:
            ids.append(data["memory_id"])

    try:
        time.sleep(2)  # the worker starts while the first stores are scheduled
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(send, range(len(items)), items))
        sent_seconds = time.perf_counter() - started
        deadline = time.monotonic() + 120
        while pending(database_url) and time.monotonic() < deadline:
            time.sleep(0.5)
    finally:
        worker.terminate()
        worker.wait(timeout=60)
    with psycopg.connect(database_url) as conn:
        lags = [float(row[0]) for row in conn.execute(LAG_SQL, [ids]).fetchall()]
    values = np.asarray(lags or [float("nan")])
    report = {
        "stores": len(ids),
        "target_rate_per_second": rate,
        "achieved_rate_per_second": round(len(ids) / sent_seconds, 1),
        "enriched": len(lags),
        "p50_s": round(float(np.percentile(values, 50)), 3),
        "p95_s": round(float(np.percentile(values, 95)), 3),
        "max_s": round(float(values.max()), 3),
    }
    log(
        f"enrichment lag at {report['achieved_rate_per_second']} stores/s: p50 {report['p50_s']} s, "
        f"p95 {report['p95_s']} s ({len(lags)} of {len(ids)} enriched)"
    )
    return report


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, default=4, help="timed batches of 500")
    parser.add_argument("--singles", type=int, default=200, help="timed single stores")
    parser.add_argument("--prefill", type=int, default=10_000, help="memories added first (bench.seed)")
    parser.add_argument("--lag-seconds", type=float, default=20, help="how long stores arrive for the lag")
    parser.add_argument("--lag-rate", type=float, default=50, help="single stores per second for the lag")
    parser.add_argument("--drain-memories", type=int, default=1000, help="memories per drain trial")
    parser.add_argument("--drain-batch", type=int, default=10, help="memories per stored batch (per job)")
    parser.add_argument("--drain-workers", default="1,2", help="worker counts to drain with")
    parser.add_argument("--database-url", default=STORE_DATABASE_URL)
    parser.add_argument("--keep", action="store_true", help="reuse the database instead of re-creating it")
    parser.add_argument("--port", type=int, default=BENCH_PORT + 2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE", help="server setting")
    args = parser.parse_args()
    server_env = dict(item.split("=", 1) for item in args.env)
    ensure_database(args.database_url, fresh=not args.keep)
    token, _ = issue_token(args.database_url, USERNAME)
    if args.prefill:
        seed(args.database_url, count=args.prefill, username=USERNAME, progress=False)
    drain_counts = [int(count) for count in args.drain_workers.split(",") if count]
    lag_count = int(args.lag_seconds * args.lag_rate)
    # Ten singles and a batch larger than MEMSITE_EMBEDDING_BATCH_SIZE, so the worker has built both
    # of its embedding sessions (one thread for single texts, all cores for batches) before timing.
    warmup = 10 + 100
    total = warmup + args.batches * BATCH_SIZE + args.singles
    items = distinct_items(total + len(drain_counts) * args.drain_memories + lag_count, int(time.time()))
    warm_singles, warm_batch, items = items[:10], items[10:warmup], items[warmup:]
    batches = [items[i * BATCH_SIZE : (i + 1) * BATCH_SIZE] for i in range(args.batches)]
    singles = items[args.batches * BATCH_SIZE : total - warmup]
    rest = items[total - warmup :]
    drains = [rest[i * args.drain_memories : (i + 1) * args.drain_memories] for i in range(len(drain_counts))]
    lag_items = rest[len(drain_counts) * args.drain_memories :]

    with running_server(args.database_url, args.port, args.workers, server_env) as base_url:
        client = Client(base_url, token)
        for item in warm_singles:
            client.expect("POST", "/memory", body=item)
        client.expect("POST", "/memory/batch", body={"memories": warm_batch})
        batch_runs = []
        for number, batch in enumerate(batches, 1):
            data, elapsed = client.expect("POST", "/memory/batch", body={"memories": batch})
            stored = stored_count(data)
            rate = BATCH_SIZE / (elapsed / 1000)
            log(f"batch {number}: {BATCH_SIZE} in {elapsed:.0f} ms = {rate:.0f} memories/s ({stored} stored)")
            batch_runs.append(
                {"ms": round(elapsed, 1), "memories_per_second": round(rate, 1), "stored": stored}
            )
        single_ms = []
        for item in singles:
            _, elapsed = client.expect("POST", "/memory", statuses=(201,), body=item)
            single_ms.append(elapsed)
        log(f"{pending(args.database_url)} memories queued for enrichment; a worker empties the queue")
        drain(args.database_url, client, [], 1, 1, server_env)
        drain_runs = [
            drain(args.database_url, client, chunk, args.drain_batch, workers, server_env)
            for workers, chunk in zip(drain_counts, drains, strict=True)
        ]
        client.close()
        lag_report = None
        if lag_items:
            lag_report = lag(args.database_url, base_url, token, lag_items, args.lag_rate, server_env)

    rates = [run["memories_per_second"] for run in batch_runs]
    single = summarize_ms(single_ms) if single_ms else None
    report = {
        "benchmark": "store_throughput",
        "database": args.database_url.rsplit("/", 1)[-1],
        "prefill": {"memories": args.prefill, "precomputed_vectors": True},
        "precomputed_vectors": False,
        "enrichment_during_stores": "queued (no worker running)",
        "server": f"gunicorn, {args.workers} workers, 127.0.0.1:{args.port}",
        "server_settings": server_env,
        "batch": {
            "size": BATCH_SIZE,
            "runs": batch_runs,
            "median_memories_per_second": round(float(np.median(rates)), 1) if rates else None,
        },
        "single": single,
        "drain": drain_runs,
        "enrichment_lag": lag_report,
        "targets": TARGETS,
        "met": {
            "batch": bool(rates) and float(np.median(rates)) >= TARGETS["batch_memories_per_second"],
            "single_p50": single is not None and single["p50_ms"] <= TARGETS["single_p50_ms"],
            "single_p95": single is not None and single["p95_ms"] <= TARGETS["single_p95_ms"],
            "enrichment_lag": lag_report is not None
            and lag_report["p95_s"] <= TARGETS["enrichment_lag_p95_s"],
        },
        "machine": machine(),
    }
    singles = f"p50 {single['p50_ms']} ms, p95 {single['p95_ms']} ms" if single else "none sent"
    log(
        f"batch of {BATCH_SIZE}: {report['batch']['median_memories_per_second']} memories/s (median); "
        f"single stores: {singles}"
    )
    emit(report)


if __name__ == "__main__":
    main()
