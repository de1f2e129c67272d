"""Graph traversal at scale: recall with 2-hop expansion over HTTP, Cypher vs recursive SQL.

    .venv/bin/python -m bench.graph_traversal [--database-url URL] [--user bench] [--queries 200]

Needs the bench user's memories and associations (bench.seed --count 100000, then
bench.graph_seed --count 300000). Three measurements:
1. `GET /recall?expand_relations=true&max_hops=2&limit=10` over HTTP on a gunicorn server of its
   own, query embedding included, with the same queries also timed without expansion
   (target: p95 <= 100 ms with expansion).
2. The neighbourhood of one memory, 2 hops in both directions, as the service computes it:
   `graph.queries.traverse`, i.e. per hop one directed Cypher pattern out and one in on AGE, all
   frontier vertices in one UNWIND.
3. The same traversal as one recursive SQL query on `graph_association`; both must reach the same
   memories (checked for every start).
"""

import argparse
import os
import time

import numpy as np
import psycopg

from bench.client import (
    BENCH_DATABASE_URL,
    Client,
    emit,
    issue_token,
    log,
    machine,
    running_server,
    summarize_ms,
)
from bench.seed import generate_queries

PORT = 8095
TARGET_P95_MS = 100
RECURSIVE_SQL = """
WITH RECURSIVE walk(id, depth) AS (
    SELECT %(start)s::uuid, 0
    UNION
    SELECT next.id, walk.depth + 1
    FROM walk CROSS JOIN LATERAL (
        SELECT a.target_id AS id FROM graph_association a WHERE a.source_id = walk.id
        UNION ALL
        SELECT a.source_id FROM graph_association a WHERE a.target_id = walk.id
    ) next
    WHERE walk.depth < %(hops)s
)
SELECT id, min(depth) FROM walk GROUP BY id
"""


def recall_latency(database_url, username, queries, port):
    token, _ = issue_token(database_url, username)
    texts = generate_queries(queries + 20, random_seed=23)
    expanded, plain, sizes = [], [], []
    with running_server(database_url, port) as url:
        client = Client(url, token)
        for text in texts[:20]:
            client.expect("GET", "/recall", params={"query": text, "expand_relations": "true", "max_hops": 2})
        for text in texts[20:]:
            params = {"query": text, "limit": 10}
            data, elapsed = client.expect(
                "GET", "/recall", params={**params, "expand_relations": "true", "max_hops": 2}
            )
            expanded.append(elapsed)
            sizes.append(data["expansion"]["expanded_count"])
            _, elapsed = client.expect("GET", "/recall", params=params)
            plain.append(elapsed)
        client.close()
    return {
        "with_expansion_2_hops": summarize_ms(expanded),
        "without_expansion": summarize_ms(plain),
        "mean_expanded_results": round(float(np.mean(sizes)), 1),
        "target_p95_ms": TARGET_P95_MS,
        "meets_target": summarize_ms(expanded)["p95_ms"] <= TARGET_P95_MS,
    }


def traversal_comparison(database_url, username, starts, hops=2):
    """Time the service's Cypher traversal against one recursive SQL query, from the same starts."""
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memsite.settings")
    import django

    django.setup()
    from django.db import connection

    from graph.queries import traverse

    with psycopg.connect(database_url) as conn:
        owner = conn.execute("SELECT id FROM auth_user WHERE username = %s", [username]).fetchone()[0]
        ids = [
            str(row[0])
            for row in conn.execute(
                "SELECT a.source_id FROM graph_association a JOIN memories_memory m ON m.id = a.source_id "
                "WHERE m.owner_id = %s ORDER BY random() LIMIT %s",
                [owner, starts],
            )
        ]
    cypher_ms, sql_ms, reached = [], [], []
    for start in ids[:10]:
        traverse([start], hops)
    with connection.cursor() as cursor:
        for start in ids:
            began = time.perf_counter()
            _, depth = traverse([start], hops)
            cypher_ms.append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            cursor.execute(RECURSIVE_SQL, {"start": start, "hops": hops})
            rows = cursor.fetchall()
            sql_ms.append((time.perf_counter() - began) * 1000)
            by_sql = {str(memory_id): hop for memory_id, hop in rows}
            if by_sql != depth:
                raise RuntimeError(f"Cypher and SQL disagree from {start}: {len(depth)} vs {len(by_sql)}")
            reached.append(len(depth) - 1)
    cypher, recursive = summarize_ms(cypher_ms), summarize_ms(sql_ms)
    return {
        "hops": hops,
        "starts": len(ids),
        "mean_memories_reached": round(float(np.mean(reached)), 1),
        "cypher_on_age_hop_by_hop": cypher,
        "recursive_sql_on_association_table": recursive,
        "same_result": True,
        "faster": "cypher" if cypher["p50_ms"] < recursive["p50_ms"] else "recursive_sql",
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=BENCH_DATABASE_URL)
    parser.add_argument("--user", default="bench")
    parser.add_argument("--queries", type=int, default=200, help="timed recall queries (default 200)")
    parser.add_argument("--starts", type=int, default=200, help="traversal start memories (default 200)")
    parser.add_argument("--port", type=int, default=PORT)
    args = parser.parse_args()
    with psycopg.connect(args.database_url) as conn:
        (memories,) = conn.execute("SELECT count(*) FROM memories_memory").fetchone()
        (associations,) = conn.execute("SELECT count(*) FROM graph_association").fetchone()
    log(f"{memories:,} memories, {associations:,} associations")
    report = {
        "benchmark": "graph_traversal",
        "database": args.database_url.rsplit("/", 1)[-1],
        "memories": memories,
        "associations": associations,
        "precomputed_vectors": True,
        "recall": recall_latency(args.database_url, args.user, args.queries, args.port),
    }
    log(f"recall: {report['recall']}")
    report.update(
        neighbourhood=traversal_comparison(args.database_url, args.user, args.starts),
        measured="recall: HTTP client side, one request at a time, gunicorn 2 workers; "
        "neighbourhood: in process, one database round trip per Cypher hop",
        machine=machine(),
    )
    emit(report)


if __name__ == "__main__":
    main()
