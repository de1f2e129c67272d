"""Where one recall's time goes, end to end.

    .venv/bin/python -m bench.recall_profile                      # 100,000 memories (bench.seed)
    .venv/bin/python -m bench.recall_profile --locomo             # the LoCoMo turns (bench.locomo)

The same requests go, turn about, over HTTP to a gunicorn server as `make run` starts it, through
the ASGI application in this process (uvicorn's part left out) and through Django's WSGI handler
in this process (the a2wsgi bridge left out as well); the differences are the server's transport
and the bridge. Over the WSGI handler each SQL statement is timed where Django executes it, a
Python profile (cProfile) splits the request into middleware, authentication, throttle, the
recall's steps and the response, and the statements of a few recalls are run again with
`EXPLAIN (ANALYZE, BUFFERS)` in a transaction that is rolled back.
"""

import argparse
import asyncio
import cProfile
import os
import pstats
import re
import time
from collections import defaultdict
from pathlib import Path
from urllib.parse import urlencode

import numpy as np

from bench.client import (
    BENCH_DATABASE_URL,
    Client,
    database_url,
    emit,
    issue_token,
    log,
    machine,
    running_server,
    server_environment,
    summarize_ms,
)
from bench.recall_latency import recall_params
from bench.seed import generate_queries

LOCOMO_DATABASE_URL = database_url("memsite_locomo_session")
WARMUP = 20

# (part, module path suffix, function name): the request's parts as the profile names them.
PARTS = [
    ("Django handler (all of the request below)", "django/core/handlers/base.py", "get_response"),
    ("DRF view dispatch", "rest_framework/views.py", "dispatch"),
    ("authentication", "memsite/api/authentication.py", "authenticate"),
    ("throttle", "memsite/api/throttling.py", "allow_request"),
    ("recall (memories.recall.recall)", "memories/recall.py", "recall"),
    ("query: embedding beside the terms statement", "memories/recall.py", "_query"),
    ("scoring statement and its rows", "memories/recall.py", "_score"),
    ("queueing the accesses", "memories/services.py", "record_access"),
    ("serializing the results", "memories/api/serializers.py", "recall_result_data"),
    ("rendering JSON", "rest_framework/renderers.py", "render"),
]


def classify(statement):
    """A short name for an SQL statement of the request."""
    text = " ".join(statement.split())
    if "set_config('hnsw.ef_search'" in text:
        return "recall settings (set_config)"
    if "memsite_apitoken" in text:
        return "token lookup" if text.startswith("SELECT") else "token last_used_at update"
    if text.startswith("WITH common_lexemes"):
        return "query terms and their IDF"
    if "final" in text and "rank_score" in text:
        return "scoring statement"
    if "(memory_id, accessed_at)" in text:
        return "queue accesses"
    if "procrastinate" in text:
        return "defer the access job"
    if "WITH doomed AS" in text:
        return "throttle counter"
    match = re.search(r'(?:FROM|INTO|UPDATE)\s+"?(\w+)"?', text)
    return f"{text.split()[0]} {match.group(1) if match else ''}".strip()


def asgi_call(application, loop, path, headers):
    """One GET through the ASGI application; answers (status, milliseconds)."""
    route, _, query = path.partition("?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": route,
        "raw_path": route.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1")] + headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    status = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        if message["type"] == "http.response.start":
            status.append(message["status"])

    started = time.perf_counter()
    loop.run_until_complete(application(scope, receive, send))
    return status[0], (time.perf_counter() - started) * 1000


def wsgi_call(handler, path, token):
    """One GET through Django's WSGI handler in this thread; answers (status, milliseconds)."""
    from django.test.client import RequestFactory

    route, _, query = path.partition("?")
    environ = RequestFactory().get(route, HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Bearer {token}").environ
    environ["QUERY_STRING"] = query
    status = []
    started = time.perf_counter()
    body = handler(environ, lambda code, headers, exc_info=None: status.append(code))
    b"".join(body)
    getattr(body, "close", lambda: None)()
    return int(status[0].split()[0]), (time.perf_counter() - started) * 1000


class StatementTimer:
    """Times each statement Django executes on a connection, by kind; keeps the last request's."""

    def __init__(self):
        self.times = defaultdict(list)
        self.captured = []

    def __call__(self, execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.times[classify(sql)].append((time.perf_counter() - started) * 1000)
            self.captured.append((sql, params))


def explain(connection, statements):
    """EXPLAIN (ANALYZE, BUFFERS) of one request's statements, in order, rolled back."""
    from django.db import transaction

    plans = []
    with transaction.atomic(), connection.cursor() as cursor:
        for sql, params in statements:
            cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) {sql}", params)
            (plan,) = cursor.fetchone()[0]
            top = plan["Plan"]
            plans.append(
                {
                    "statement": classify(sql),
                    "planning_ms": round(plan.get("Planning Time", 0), 2),
                    "execution_ms": round(plan.get("Execution Time", 0), 2),
                    "shared_hit": top.get("Shared Hit Blocks", 0),
                    "shared_read": top.get("Shared Read Blocks", 0),
                    "rows": top.get("Actual Rows"),
                }
            )
        transaction.set_rollback(True)
    return plans


def profile_parts(profile, count):
    """Cumulative milliseconds per request of each part in PARTS."""
    stats = pstats.Stats(profile).stats
    parts = {}
    for name, suffix, function in PARTS:
        total = sum(
            entry[3]
            for (filename, _, func), entry in stats.items()
            if func == function and filename.endswith(suffix)
        )
        parts[name] = round(total * 1000 / count, 2)
    return parts


def locomo_requests(path, limit):
    from bench.locomo import load, questions

    requests = []
    for sample_id, qa, _ in questions(load(path)):
        requests.append({"query": qa["question"], "tags": sample_id, "limit": 10})
    step = max(1, len(requests) // limit)
    return requests[::step][:limit]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--database-url", help="default memsite_bench, or memsite_locomo_session with --locomo"
    )
    parser.add_argument("--locomo", action="store_true", help="LoCoMo questions on bench.locomo's turns")
    parser.add_argument("--locomo-path", type=Path, help="locomo-dev.json (bench.locomo's default)")
    parser.add_argument("--user", help="owner of the memories (bench, or locomo)")
    parser.add_argument("--queries", type=int, default=200, help="timed requests per path")
    parser.add_argument("--explain", type=int, default=20, help="requests whose statements are explained")
    parser.add_argument("--port", type=int, default=8104)
    parser.add_argument("--no-http", action="store_true", help="in process only")
    args = parser.parse_args()
    url = args.database_url or (LOCOMO_DATABASE_URL if args.locomo else BENCH_DATABASE_URL)
    user = args.user or ("locomo" if args.locomo else "bench")
    if args.locomo:
        from bench.locomo import DEFAULT_PATH

        requests = locomo_requests(args.locomo_path or DEFAULT_PATH, args.queries)
    else:
        requests = recall_params(generate_queries(args.queries), {})
    paths = [f"/recall?{urlencode(params, doseq=True)}" for params in requests]
    token, _ = issue_token(url, user)
    os.environ.update(server_environment(url))

    import django

    django.setup()
    from django.core.handlers.wsgi import WSGIHandler
    from django.db import connection

    from memsite.asgi import application

    handler = WSGIHandler()
    loop = asyncio.new_event_loop()
    headers = [(b"authorization", f"Bearer {token}".encode())]
    for path in paths[:WARMUP]:
        asgi_call(application, loop, path, headers)
        wsgi_call(handler, path, token)

    def timed(base_url):
        client = Client(base_url, token) if base_url else None
        for path in paths[:WARMUP] if client else ():
            client.request("GET", path)
        times = {"http": [], "asgi": [], "wsgi": []}
        timer = StatementTimer()
        for index, path in enumerate(paths):
            order = ["http", "asgi", "wsgi"] if client else ["asgi", "wsgi"]
            for kind in order[index % len(order) :] + order[: index % len(order)]:
                if kind == "http":
                    status, _, elapsed = client.request("GET", path)
                elif kind == "asgi":
                    status, elapsed = asgi_call(application, loop, path, headers)
                else:
                    with connection.execute_wrapper(timer):
                        status, elapsed = wsgi_call(handler, path, token)
                if status != 200:
                    raise RuntimeError(f"{path} answered {status}")
                times[kind].append(elapsed)
        return {kind: summarize_ms(values) for kind, values in times.items() if values}, timer

    if args.no_http:
        paths_ms, timer = timed(None)
    else:
        log("starting the server")
        with running_server(url, port=args.port) as base_url:
            paths_ms, timer = timed(base_url)
    log("profiling")
    profile = cProfile.Profile()
    profile.enable()
    for path in paths:
        wsgi_call(handler, path, token)
    profile.disable()
    log("explaining")
    plans = defaultdict(lambda: defaultdict(list))
    for path in paths[: args.explain]:
        capture = StatementTimer()
        with connection.execute_wrapper(capture):
            wsgi_call(handler, path, token)
        for plan in explain(connection, capture.captured):
            for key in ("planning_ms", "execution_ms", "shared_hit", "shared_read"):
                plans[plan["statement"]][key].append(plan[key])
    emit(
        {
            "benchmark": "recall_profile",
            "data": "locomo" if args.locomo else "bench.seed",
            "database": url.rsplit("/", 1)[-1],
            "requests": len(paths),
            "paths_ms": paths_ms,
            "statements_p50_ms_per_request": {
                kind: {
                    "per_request": round(len(values) / (len(paths)), 2),
                    "p50_ms": round(float(np.percentile(values, 50)), 2),
                    "mean_ms": round(float(np.mean(values)), 2),
                }
                for kind, values in sorted(timer.times.items())
            },
            "profile_ms_per_request": profile_parts(profile, len(paths)),
            "explain_median": {
                statement: {key: round(float(np.median(values)), 2) for key, values in fields.items()}
                for statement, fields in plans.items()
            },
            "machine": machine(),
        }
    )


if __name__ == "__main__":
    main()
