"""Recall latency over HTTP at 10,000 and 100,000 memories (SPEC section 10).

    .venv/bin/python -m bench.recall_latency [--sizes 10000 100000] [--queries 300]

For each size, the bench database is grown with bench.seed (COPY, precomputed vectors) until the
bench user owns that many memories; then gunicorn (2 workers) is started on its own port against
it, warmed up, and `GET /recall` is timed from the client, one request at a time, with varied
natural-language queries the server has to embed (query embedding included), a mix of plain
queries and tag- or type-filtered ones. Targets at 100,000: p50 <= 25 ms, p95 <= 50 ms.
`--param expand_relations=true --param max_hops=2` times graph expansion (target p95 <= 100 ms).
"""

import argparse
import time

import numpy as np
import psycopg

from bench.client import (
    BENCH_DATABASE_URL,
    BENCH_PORT,
    Client,
    emit,
    ensure_database,
    issue_token,
    log,
    machine,
    running_server,
    summarize_ms,
)
from bench.seed import PROJECTS, generate_queries, seed

TARGETS = {"p50_ms": 25, "p95_ms": 50}
WARMUP = 30


def owned_count(database_url, username):
    with psycopg.connect(database_url) as conn:
        row = conn.execute(
            "SELECT count(*) FROM memories_memory m JOIN auth_user u ON u.id = m.owner_id "
            "WHERE u.username = %s AND m.archived_at IS NULL",
            [username],
        ).fetchone()
    return row[0]


def recall_params(queries, extra, random_seed=5):
    """Varied recall requests: 70% plain, 15% restricted to a project tag, 15% to a type."""
    rng = np.random.default_rng(random_seed)
    types = ["Decision", "Preference", "Memory", "Insight", "Context"]
    requests = []
    for query in queries:
        params = {"query": query, "limit": 10, **extra}
        draw = rng.random()
        if draw < 0.15:
            params["tags"] = PROJECTS[int(rng.integers(len(PROJECTS)))]
        elif draw < 0.30:
            params["type"] = types[int(rng.integers(len(types)))]
        requests.append(params)
    return requests


def measure(base_url, token, requests):
    client = Client(base_url, token)
    for params in recall_params(generate_queries(WARMUP, random_seed=99), {}):
        client.expect("GET", "/recall", params=params)
    client_ms, server_ms, counts, match_types = [], [], [], {}
    for params in requests:
        data, elapsed = client.expect("GET", "/recall", params=params)
        client_ms.append(elapsed)
        server_ms.append(data.get("query_time_ms", 0))
        counts.append(data.get("count", len(data.get("results", []))))
        for result in data.get("results", []):
            kind = result.get("match_type", "?")
            match_types[kind] = match_types.get(kind, 0) + 1
    client.close()
    return {
        "http": summarize_ms(client_ms),
        "server_query_time": summarize_ms(server_ms),
        "mean_results": round(float(np.mean(counts)), 2),
        "match_types": match_types,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=300, help="timed requests per size")
    parser.add_argument("--database-url", default=BENCH_DATABASE_URL)
    parser.add_argument("--user", default="bench")
    parser.add_argument("--port", type=int, default=BENCH_PORT)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--param", action="append", default=[], metavar="KEY=VALUE", help="extra recall parameter"
    )
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE", help="server setting")
    args = parser.parse_args()
    extra = dict(item.split("=", 1) for item in args.param)
    server_env = dict(item.split("=", 1) for item in args.env)
    ensure_database(args.database_url)
    requests = recall_params(generate_queries(args.queries), extra)
    runs = []
    for size in sorted(args.sizes):
        have = owned_count(args.database_url, args.user)
        if have < size:
            log(f"Seeding {size - have:,} memories to reach {size:,}")
            seed(args.database_url, size - have, args.user)
        elif have > size:
            log(f"Note: {args.user} already owns {have:,} memories (more than {size:,})")
        token, _ = issue_token(args.database_url, args.user)
        with running_server(args.database_url, args.port, args.workers, server_env) as base_url:
            started = time.perf_counter()
            result = measure(base_url, token, requests)
            seconds = time.perf_counter() - started
        memories = owned_count(args.database_url, args.user)
        result = {"memories": memories, **result, "requests_per_second": round(len(requests) / seconds, 1)}
        if size >= 100_000:
            result["targets"] = TARGETS
            result["met"] = all(result["http"][key] <= limit for key, limit in TARGETS.items())
        log(
            f"{memories:,} memories: p50 {result['http']['p50_ms']} ms, p95 {result['http']['p95_ms']} ms "
            f"(server {result['server_query_time']['p50_ms']}/{result['server_query_time']['p95_ms']} ms)"
        )
        runs.append(result)
    emit(
        {
            "benchmark": "recall_latency",
            "database": args.database_url.rsplit("/", 1)[-1],
            "precomputed_vectors": True,
            "query_embedding_included": True,
            "client": "one keep-alive HTTP connection, sequential requests",
            "server": f"gunicorn, {args.workers} workers, 127.0.0.1:{args.port}",
            "recall_parameters": {"limit": 10, **extra, "mix": "70% plain, 15% tags=<project>, 15% type"},
            "server_settings": server_env,
            "runs": runs,
            "machine": machine(),
        }
    )


if __name__ == "__main__":
    main()
