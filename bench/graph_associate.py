"""POST /associate with a batch of 500 over HTTP (SPEC section 10: <= 500 ms).

    .venv/bin/python -m bench.graph_associate [--database-url URL] [--user bench] [--batches 20]

Runs against the bench user's memories (bench.seed; bench.graph_seed for a loaded graph), on a
gunicorn server of its own. Each timed request creates 500 new associations between random pairs
of the user's memories (set-based upsert plus one Cypher UNWIND per relation type, one
transaction); then the same batches are sent again, which MERGEs (updates) every edge. Times are
client-side, request to response. Afterwards `manage.py graph_check` must report no difference.
"""

import argparse

import numpy as np
import psycopg

from bench.client import (
    BENCH_DATABASE_URL,
    Client,
    emit,
    issue_token,
    log,
    machine,
    manage,
    running_server,
    summarize_ms,
)
from bench.graph_seed import TYPES, owner_memories

PORT = 8099
BATCH = 500
TARGET_MS = 500


def batches(ids, count, random_seed):
    """`count` batches of random pairs; seeded by the table size so that each run adds new edges."""
    rng = np.random.default_rng(random_seed)
    result = []
    for _ in range(count):
        items = []
        while len(items) < BATCH:
            source, target = rng.integers(len(ids), size=2)
            if source != target:
                items.append(
                    {
                        "memory1_id": str(ids[source]),
                        "memory2_id": str(ids[target]),
                        "type": TYPES[int(rng.integers(len(TYPES)))],
                        "strength": round(float(rng.uniform(0.3, 1.0)), 3),
                    }
                )
        result.append(items)
    return result


def run(database_url, username, count, port):
    with psycopg.connect(database_url) as conn:
        _, ids = owner_memories(conn, username)
        (associations,) = conn.execute("SELECT count(*) FROM graph_association").fetchone()
    token, _ = issue_token(database_url, username)
    work = batches(ids, count, random_seed=associations)
    created, merged = [], []
    with running_server(database_url, port) as url:
        client = Client(url, token)
        client.expect("POST", "/associate", statuses=(201, 207), body={"associations": work[0][:50]})
        for items in work:
            data, elapsed = client.expect("POST", "/associate", statuses=(201,), body={"associations": items})
            created.append(elapsed)
        for items in work:
            for item in items:
                item["strength"] = round(1.3 - item["strength"], 3)
            data, elapsed = client.expect("POST", "/associate", statuses=(201,), body={"associations": items})
            merged.append(elapsed)
        client.close()
    log("Checking tables against the graph (manage.py graph_check)")
    manage("graph_check", database_url=database_url)
    new_edges = summarize_ms(created)
    return {
        "benchmark": "graph_associate",
        "database": database_url.rsplit("/", 1)[-1],
        "memories": len(ids),
        "associations_before": associations,
        "batch_size": BATCH,
        "new_edges": new_edges,
        "merge_existing_edges": summarize_ms(merged),
        "target_ms": TARGET_MS,
        "meets_target": new_edges["p95_ms"] <= TARGET_MS,
        "graph_check": "tables and graph agree",
        "measured": "HTTP client side, one request at a time, gunicorn 2 workers",
        "machine": machine(),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=BENCH_DATABASE_URL)
    parser.add_argument("--user", default="bench")
    parser.add_argument("--batches", type=int, default=20, help="timed batches of 500 (default 20)")
    parser.add_argument("--port", type=int, default=PORT)
    args = parser.parse_args()
    emit(run(args.database_url, args.user, args.batches, args.port))


if __name__ == "__main__":
    main()
