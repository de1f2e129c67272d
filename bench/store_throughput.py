"""Store throughput over HTTP: `POST /memory/batch` of 500 and single `POST /memory` latency.

    .venv/bin/python -m bench.store_throughput [--batches 4] [--singles 200]

Runs against a fresh database of its own (`memsite_bench_store` by default; `--keep` reuses it),
through gunicorn (2 workers) on its own port. Every memory is a distinct generated sentence, so
the server embeds each one with the real model (nothing precomputed), evaluates its quality,
writes its vertex and runs enrichment as it would for any client. Targets: a batch of 500 at
>= 200 memories/s; single store p50 <= 30 ms.
"""

import argparse
import time

import numpy as np

from bench.client import (
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
from bench.seed import CLAUSES, generate_pool, slots

STORE_DATABASE_URL = "postgres://postgres@127.0.0.1:54329/memsite_bench_store"
BATCH_SIZE = 500
TARGETS = {"batch_memories_per_second": 200, "single_p50_ms": 30}


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, default=4, help="timed batches of 500")
    parser.add_argument("--singles", type=int, default=200, help="timed single stores")
    parser.add_argument("--database-url", default=STORE_DATABASE_URL)
    parser.add_argument("--keep", action="store_true", help="reuse the database instead of re-creating it")
    parser.add_argument("--port", type=int, default=BENCH_PORT + 2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE", help="server setting")
    args = parser.parse_args()
    server_env = dict(item.split("=", 1) for item in args.env)
    ensure_database(args.database_url, fresh=not args.keep)
    token, _ = issue_token(args.database_url, "bench-store")
    warmup = 20
    items = distinct_items(warmup + args.batches * BATCH_SIZE + args.singles, int(time.time()))
    warm_singles, warm_batch, items = items[:10], items[10:warmup], items[warmup:]
    batches = [items[i * BATCH_SIZE : (i + 1) * BATCH_SIZE] for i in range(args.batches)]
    singles = items[args.batches * BATCH_SIZE :]

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
        client.close()

    rates = [run["memories_per_second"] for run in batch_runs]
    single = summarize_ms(single_ms)
    report = {
        "benchmark": "store_throughput",
        "database": args.database_url.rsplit("/", 1)[-1],
        "precomputed_vectors": False,
        "server": f"gunicorn, {args.workers} workers, 127.0.0.1:{args.port}",
        "server_settings": server_env,
        "batch": {
            "size": BATCH_SIZE,
            "runs": batch_runs,
            "median_memories_per_second": round(float(np.median(rates)), 1) if rates else None,
        },
        "single": single,
        "targets": TARGETS,
        "met": {
            "batch": bool(rates) and float(np.median(rates)) >= TARGETS["batch_memories_per_second"],
            "single": single["p50_ms"] <= TARGETS["single_p50_ms"],
        },
        "machine": machine(),
    }
    log(
        f"batch of {BATCH_SIZE}: {report['batch']['median_memories_per_second']} memories/s (median); "
        f"single store p50 {single['p50_ms']} ms, p95 {single['p95_ms']} ms"
    )
    emit(report)


if __name__ == "__main__":
    main()
