"""recall_memory over MCP (streamable HTTP) next to GET /recall, in the same run.

    .venv/bin/python -m bench.mcp_recall [--memories 10000] [--queries 200]

Grows `memsite_mcpbench` with bench.seed to `--memories` memories (precomputed vectors), starts
the server as `make run` does (gunicorn, uvicorn workers, the ASGI application) on a free
loopback port, warms both paths up and then, query by query, times `GET /recall` over one
keep-alive connection and the `recall_memory` tool called with the SDK's client over one
streamable HTTP connection, alternating which goes first. Both ask the same question with
`limit=10`; the server embeds every query. The MCP figure is the whole tool round trip: JSON-RPC
framing, token check, the same recall, and the structured result.

Then it starts `manage.py mcp` as an assistant does (stdio, a fresh process) and times the first
contact: from the spawn to the answered `initialize`, the first `recall_memory`, and the next ones.
"""

import argparse
import socket
import sys
import time

import anyio
import httpx2
from mcp import Client as McpClient
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

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
    summarize_ms,
)
from bench.recall_latency import owned_count
from bench.seed import generate_queries, seed

DATABASE_URL = database_url("memsite_mcpbench")
WARMUP = 20
STDIO_RECALLS = 20


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def top(answer):
    return answer["results"][0]["id"] if answer["results"] else None


async def measure(base_url, token, queries):
    rest = Client(base_url, token)
    headers = {"Authorization": f"Bearer {token}"}
    rest_ms, mcp_ms, same_top = [], [], 0
    async with (
        httpx2.AsyncClient(headers=headers, timeout=600) as http,
        McpClient(streamable_http_client(f"{base_url}/mcp", http_client=http)) as mcp,
    ):

        async def over_mcp(query):
            started = time.perf_counter()
            result = await mcp.call_tool("recall_memory", {"query": query, "limit": 10})
            elapsed = (time.perf_counter() - started) * 1000
            if result.is_error:
                raise RuntimeError(f"recall_memory failed: {result.content[0].text}")
            return result.structured_content, elapsed

        def over_rest(query):
            return rest.expect("GET", "/recall", params={"query": query, "limit": 10})

        for query in generate_queries(WARMUP, random_seed=99):
            over_rest(query)
            await over_mcp(query)
        for index, query in enumerate(queries):
            if index % 2:
                via_mcp, mcp_elapsed = await over_mcp(query)
                via_rest, rest_elapsed = over_rest(query)
            else:
                via_rest, rest_elapsed = over_rest(query)
                via_mcp, mcp_elapsed = await over_mcp(query)
            rest_ms.append(rest_elapsed)
            mcp_ms.append(mcp_elapsed)
            same_top += top(via_rest) == top(via_mcp)
    rest.close()
    rest_summary, mcp_summary = summarize_ms(rest_ms), summarize_ms(mcp_ms)
    return {
        "rest_get_recall": rest_summary,
        "mcp_recall_memory": mcp_summary,
        "mcp_overhead_ms": {
            key: round(mcp_summary[key] - rest_summary[key], 2) for key in ("p50_ms", "p95_ms", "mean_ms")
        },
        "same_top_result": f"{same_top}/{len(queries)}",
    }


async def first_stdio_contact(database_url, token, queries):
    """A fresh `manage.py mcp` over stdio: spawn to initialized, the first recall, the next ones."""
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp"],
        env=server_environment(database_url, {"MEMSITE_MCP_TOKEN": token}),
        cwd=str(ROOT),
    )
    started = time.perf_counter()
    async with McpClient(parameters) as mcp:
        ready_ms = (time.perf_counter() - started) * 1000
        recall_ms = []
        for query in queries[: STDIO_RECALLS + 1]:
            began = time.perf_counter()
            result = await mcp.call_tool("recall_memory", {"query": query, "limit": 10})
            recall_ms.append((time.perf_counter() - began) * 1000)
            if result.is_error:
                raise RuntimeError(f"recall_memory failed: {result.content[0].text}")
    return {
        "spawn_to_initialized_ms": round(ready_ms, 1),
        "first_recall_ms": round(recall_ms[0], 1),
        "next_recalls": summarize_ms(recall_ms[1:]),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=10_000, help="memories of the bench user")
    parser.add_argument("--queries", type=int, default=200, help="timed queries (each over both paths)")
    parser.add_argument("--database-url", default=DATABASE_URL)
    parser.add_argument("--user", default="bench")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    ensure_database(args.database_url)
    have = owned_count(args.database_url, args.user)
    if have < args.memories:
        log(f"Seeding {args.memories - have:,} memories to reach {args.memories:,}")
        seed(args.database_url, args.memories - have, args.user)
    token, _ = issue_token(args.database_url, args.user)
    port = free_port()
    queries = generate_queries(args.queries)
    with running_server(args.database_url, port, args.workers) as base_url:
        started = time.perf_counter()
        result = anyio.run(measure, base_url, token, queries)
        seconds = time.perf_counter() - started
    stdio = anyio.run(first_stdio_contact, args.database_url, token, queries)
    rest, mcp = result["rest_get_recall"], result["mcp_recall_memory"]
    log(
        f"GET /recall p50 {rest['p50_ms']} ms, p95 {rest['p95_ms']} ms; "
        f"recall_memory p50 {mcp['p50_ms']} ms, p95 {mcp['p95_ms']} ms; stdio: initialized after "
        f"{stdio['spawn_to_initialized_ms']} ms, first recall {stdio['first_recall_ms']} ms"
    )
    emit(
        {
            "benchmark": "mcp_recall",
            "database": args.database_url.rsplit("/", 1)[-1],
            "memories": owned_count(args.database_url, args.user),
            "precomputed_vectors": True,
            "query_embedding_included": True,
            "recall_parameters": {"limit": 10},
            "client": "sequential; REST over one keep-alive connection, MCP with the SDK client over one "
            "streamable HTTP connection; the order alternates per query",
            "server": f"gunicorn, {args.workers} uvicorn workers, memsite.asgi, 127.0.0.1:{port}",
            "seconds": round(seconds, 1),
            **result,
            "stdio_first_contact": stdio,
            "machine": machine(),
        }
    )


if __name__ == "__main__":
    main()
