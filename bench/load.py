"""Mixed load: 30% store / 70% recall from N concurrent clients, one user each, over HTTP.

    .venv/bin/python -m bench.load [--clients 8,16] [--duration 60]

Each client is a thread with a keep-alive connection that sends requests back to back for
`--duration` seconds: `POST /memory` with a distinct generated sentence (embedded by the server)
or `GET /recall` with a query drawn from the same sentences. Against gunicorn started as
`make run` does (2 uvicorn workers) on a database of its own. Reports, per client count,
requests per second, p50/p95/p99 per kind and errors by status.
"""

import argparse
import random
import threading
import time

import numpy as np

from bench.client import BENCH_PORT, Client, database_url, emit, ensure_database, log, machine, running_server
from bench.seed import generate_pool
from bench.users import issue_tokens

LOAD_DATABASE_URL = database_url("memsite_load")
STORE_SHARE = 0.3
WARM_MEMORIES = 10
WARM_UP_SECONDS = 10


def percentiles(samples):
    values = np.asarray(samples, dtype=float)
    if not values.size:
        return {"n": 0}
    return {
        "n": int(values.size),
        **{f"p{q}_ms": round(float(np.percentile(values, q)), 1) for q in (50, 95, 99)},
    }


def client_loop(base_url, token, sentences, deadline, seed, samples):
    rng = random.Random(seed)
    client = Client(base_url, token, timeout=120)
    n = 0
    while time.monotonic() < deadline:
        text = rng.choice(sentences)
        if rng.random() < STORE_SHARE:
            kind, method, path = "store", "POST", "/memory"
            params, body = None, {"content": f"{text} (client {seed}, note {n})"}
        else:
            kind, method, path = "recall", "GET", "/recall"
            params, body = {"query": " ".join(text.split()[:6]), "limit": 5}, None
        try:
            status, _, elapsed = client.request(method, path, params=params, body=body)
        except OSError:
            status, elapsed = "connection_error", 0.0
        samples.append((kind, status, elapsed))
        n += 1
    client.close()


def run_level(base_url, tokens, sentences, duration):
    samples = []
    deadline = time.monotonic() + duration
    threads = [
        threading.Thread(target=client_loop, args=(base_url, token, sentences, deadline, seed, samples))
        for seed, token in enumerate(tokens)
    ]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    errors = {}
    for _, status, _ in samples:
        if status not in (200, 201):
            errors[str(status)] = errors.get(str(status), 0) + 1
    return {
        "clients": len(tokens),
        "seconds": round(elapsed, 1),
        "requests": len(samples),
        "requests_per_second": round(len(samples) / elapsed, 1),
        **{
            kind: percentiles([ms for k, status, ms in samples if k == kind and status in (200, 201)])
            for kind in ("store", "recall")
        },
        "errors_by_status": errors,
    }


def warm_up(base_url, tokens, sentences):
    """Give every user a few memories and load the model in every worker (untimed)."""
    for seed, token in enumerate(tokens):
        client = Client(base_url, token)
        warm = [{"content": f"{text} (warm-up {seed})"} for text in sentences[seed::97][:WARM_MEMORIES]]
        client.expect("POST", "/memory/batch", body={"memories": warm})
        client.close()
    run_level(base_url, tokens, sentences, WARM_UP_SECONDS)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", default="8,16", help="comma list of concurrent client counts")
    parser.add_argument("--duration", type=float, default=60, help="seconds per client count")
    parser.add_argument("--database-url", default=LOAD_DATABASE_URL)
    parser.add_argument("--port", type=int, default=BENCH_PORT + 10)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    levels = [int(value) for value in args.clients.split(",")]
    ensure_database(args.database_url, fresh=True)
    tokens = issue_tokens(args.database_url, "load", max(levels))
    sentences = [text for text, _, _ in generate_pool(2000, 11)]
    results = []
    with running_server(args.database_url, args.port, args.workers) as base_url:
        warm_up(base_url, tokens, sentences)
        for level in levels:
            log(f"{level} clients for {args.duration:.0f} s")
            result = run_level(base_url, tokens[:level], sentences, args.duration)
            log(
                f"{level} clients: {result['requests_per_second']} req/s, store p50 "
                f"{result['store'].get('p50_ms')} ms, recall p50 {result['recall'].get('p50_ms')} ms, "
                f"errors {result['errors_by_status']}"
            )
            results.append(result)
    emit(
        {
            "benchmark": "load",
            "mix": {"store": STORE_SHARE, "recall": 1 - STORE_SHARE},
            "server": f"gunicorn, {args.workers} uvicorn workers, 127.0.0.1:{args.port}",
            "levels": results,
            "machine": machine(),
        }
    )


if __name__ == "__main__":
    main()
