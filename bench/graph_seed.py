"""Add N random associations between one user's memories, then rebuild the AGE graph from the tables.

    .venv/bin/python -m bench.graph_seed --count 300000 [--database-url URL] [--user bench]

The memories must exist already (bench.seed). Pairs are drawn uniformly among the user's
memories (no self-links, one edge per source, target and type), with an authorable relation type
and a strength in 0.3-1.0; they go into `graph_association` with COPY in one transaction.
`--preceded-by` also links each memory to the one before it with enrichment's own rule
(`PRECEDED_BY` to the latest earlier memory with the same first tag, at most 7 days older): the edges recall's
context component follows, which a conversation stored through the API has. The graph
is then rebuilt with `manage.py graph_rebuild` (the same bulk SQL path users run), and
`manage.py graph_check` confirms that tables and graph agree. The output times both.
"""

import argparse
import os
import time
from datetime import UTC, datetime, timedelta

import numpy as np
import psycopg
from tqdm import tqdm

from bench.client import BENCH_DATABASE_URL, emit, log, machine, manage

TYPES = [
    "RELATES_TO",
    "LEADS_TO",
    "OCCURRED_BEFORE",
    "PREFERS_OVER",
    "EXEMPLIFIES",
    "CONTRADICTS",
    "REINFORCES",
    "INVALIDATED_BY",
    "EVOLVED_INTO",
    "DERIVED_FROM",
    "PART_OF",
]
WEIGHTS = np.array([40, 10, 8, 5, 5, 4, 8, 4, 6, 5, 5], dtype=float)
COLUMNS = "source_id, target_id, relation_type, strength, properties, origin, created_at, updated_at"


def owner_memories(conn, username):
    owner = conn.execute("SELECT id FROM auth_user WHERE username = %s", [username]).fetchone()
    if owner is None:
        raise SystemExit(f"no user {username!r}: run bench.seed first")
    ids = [row[0] for row in conn.execute("SELECT id FROM memories_memory WHERE owner_id = %s", [owner[0]])]
    return owner[0], ids


def random_edges(ids, count, random_seed):
    """`count` distinct (source index, target index, type index, strength) with no self-links."""
    rng = np.random.default_rng(random_seed)
    chosen = {}
    while len(chosen) < count:
        size = (count - len(chosen)) * 2
        sources = rng.integers(len(ids), size=size)
        targets = rng.integers(len(ids), size=size)
        kinds = rng.choice(len(TYPES), size=size, p=WEIGHTS / WEIGHTS.sum())
        strengths = rng.uniform(0.3, 1.0, size=size).round(3)
        for source, target, kind, strength in zip(sources, targets, kinds, strengths, strict=True):
            if source != target and len(chosen) < count:
                chosen.setdefault((int(source), int(target), int(kind)), float(strength))
    return [(source, target, kind, strength) for (source, target, kind), strength in chosen.items()]


def preceded_by(conn, ids):
    """Link each of these memories to the one before it with enrichment's own rule
    (`graph.enrichment.PREVIOUS_SQL`), in one statement; answers how many edges it added."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memsite.settings")
    import django

    django.setup()
    from django.conf import settings

    from graph.enrichment import PRECEDED_STRENGTH, PREVIOUS_SQL

    statement = f"""
    INSERT INTO graph_association (source_id, target_id, relation_type, strength, properties, origin,
                                   created_at, updated_at)
    SELECT p.id, p.previous, 'PRECEDED_BY', {PRECEDED_STRENGTH}, '{{"count": 1}}', 'enrichment', now(), now()
    FROM ({PREVIOUS_SQL}) AS p(id, owner_id, previous)
    ON CONFLICT DO NOTHING
    """
    window = timedelta(days=settings.ENRICHMENT_PRECEDED_MAX_DAYS)
    return conn.execute(statement, {"ids": ids, "window": window}).rowcount


def existing_keys(conn, owner_id):
    rows = conn.execute(
        "SELECT a.source_id, a.target_id, a.relation_type FROM graph_association a "
        "JOIN memories_memory m ON m.id = a.source_id WHERE m.owner_id = %s",
        [owner_id],
    )
    return set(rows)


def seed_associations(
    database_url=BENCH_DATABASE_URL, count=300_000, username="bench", random_seed=3, link_preceding=False
):
    """COPY `count` new associations for `username` (and with `link_preceding` the PRECEDED_BY chain),
    rebuild the graph, check it; return a report."""
    started = time.perf_counter()
    with psycopg.connect(database_url) as conn:
        owner_id, ids = owner_memories(conn, username)
        known = existing_keys(conn, owner_id)
        edges = [
            edge
            for edge in random_edges(ids, count, random_seed)
            if (ids[edge[0]], ids[edge[1]], TYPES[edge[2]]) not in known
        ]
        now = datetime.now(UTC)
        with (
            conn.cursor() as cursor,
            cursor.copy(f"COPY graph_association ({COLUMNS}) FROM STDIN") as copy,
        ):
            for source, target, kind, strength in tqdm(edges, unit="association", desc="COPY associations"):
                copy.write_row((ids[source], ids[target], TYPES[kind], strength, "{}", "user", now, now))
        chained = preceded_by(conn, ids) if link_preceding else 0
        conn.execute("ANALYZE graph_association")
    copy_seconds = time.perf_counter() - started
    log("Rebuilding the graph from the tables (manage.py graph_rebuild)")
    rebuild_started = time.perf_counter()
    manage("graph_rebuild", database_url=database_url)
    rebuild_seconds = time.perf_counter() - rebuild_started
    with psycopg.connect(database_url) as conn:
        for table in ["memsite._ag_label_vertex", "memsite._ag_label_edge"]:
            conn.execute(f"ANALYZE {table}")
        conn.execute('ANALYZE memsite."Memory"')
        for kind in [*TYPES, "PRECEDED_BY"] if link_preceding else TYPES:
            conn.execute(f'ANALYZE memsite."{kind}"')
        (total,) = conn.execute(
            "SELECT count(*) FROM graph_association a JOIN memories_memory m ON m.id = a.source_id "
            "WHERE m.owner_id = %s",
            [owner_id],
        ).fetchone()
    check_started = time.perf_counter()
    manage("graph_check", database_url=database_url)
    return {
        "benchmark": "graph_seed",
        "database": database_url.rsplit("/", 1)[-1],
        "owner": username,
        "memories": len(ids),
        "inserted_associations": len(edges),
        "inserted_preceded_by": chained,
        "owner_associations": total,
        "seconds_copy": round(copy_seconds, 1),
        "seconds_graph_rebuild": round(rebuild_seconds, 1),
        "seconds_graph_check": round(time.perf_counter() - check_started, 1),
        "graph_check": "tables and graph agree",
        "machine": machine(),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=300_000, help="associations to add (default 300000)")
    parser.add_argument("--database-url", default=BENCH_DATABASE_URL)
    parser.add_argument("--user", default="bench", help="owner of the memories")
    parser.add_argument("--seed", type=int, default=3, help="random seed")
    parser.add_argument(
        "--preceded-by", action="store_true", help="also link each memory to the one before it (PRECEDED_BY)"
    )
    args = parser.parse_args()
    emit(seed_associations(args.database_url, args.count, args.user, args.seed, args.preceded_by))


if __name__ == "__main__":
    main()
