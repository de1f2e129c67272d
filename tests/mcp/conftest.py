"""Drive the MCP server with the SDK's own client, over streamable HTTP (in process) and stdio.

Tools run in worker threads with their own database connections, so these tests commit their
data (`transaction=True`).
"""

import os
import sys
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import quote

import anyio
import httpx2
import pytest
from django.conf import settings
from django.db import connection, connections
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from memsite.asgi import build_application
from memsite.models import ApiToken

BASE_URL = "http://127.0.0.1"
ROOT = Path(settings.BASE_DIR)


@asynccontextmanager
async def lifespan(app):
    """Send the ASGI lifespan events an ASGI server sends (startup, then shutdown)."""
    to_app, app_inbox = anyio.create_memory_object_stream(2)
    app_outbox, from_app = anyio.create_memory_object_stream(2)
    async with anyio.create_task_group() as tasks:
        scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
        tasks.start_soon(app, scope, app_inbox.receive, app_outbox.send)
        await to_app.send({"type": "lifespan.startup"})
        assert (await from_app.receive())["type"] == "lifespan.startup.complete"
        yield
        await to_app.send({"type": "lifespan.shutdown"})
        assert (await from_app.receive())["type"] == "lifespan.shutdown.complete"


@asynccontextmanager
async def asgi_http(headers=None):
    """An HTTP client talking to a freshly started memsite ASGI application, in process."""
    app = build_application()
    async with lifespan(app):
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url=BASE_URL, headers=headers) as http:
            yield http


@asynccontextmanager
async def over_http(token):
    async with (
        asgi_http({"Authorization": f"Bearer {token}"}) as http,
        Client(streamable_http_client(f"{BASE_URL}/mcp", http_client=http)) as client,
    ):
        yield client


def stdio_parameters(token):
    """`manage.py mcp` against the test database, acting for the owner of `token`."""
    db = connection.settings_dict
    password = f":{quote(db['PASSWORD'])}" if db["PASSWORD"] else ""
    url = f"postgres://{quote(db['USER'])}{password}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    env = {**os.environ, "DATABASE_URL": url, "MEMSITE_MCP_TOKEN": token}
    return StdioServerParameters(command=sys.executable, args=["manage.py", "mcp"], env=env, cwd=ROOT)


@asynccontextmanager
async def over_stdio(token):
    async with Client(stdio_parameters(token)) as client:
        yield client


TRANSPORTS = {"http": over_http, "stdio": over_stdio}


def session(token, scenario, transport="http"):
    """Run `scenario(client)` against a fresh MCP connection; answer what it returns."""

    async def main():
        async with TRANSPORTS[transport](token) as client:
            return await scenario(client)

    return anyio.run(main)


def calls(token, *requests, transport="http"):
    """Call each (tool, arguments) in turn on one connection; answer the results."""

    async def scenario(client):
        return [await client.call_tool(name, arguments) for name, arguments in requests]

    return session(token, scenario, transport)


def call(token, name, arguments=None, transport="http"):
    return calls(token, (name, arguments or {}), transport=transport)[0]


def token_for(user):
    return ApiToken.issue(user)[1]


@pytest.fixture(autouse=True)
def close_thread_connections():
    """Tool threads close their connection after each call, so the test database can be dropped."""
    database = connections.settings["default"]
    previous, database["CONN_MAX_AGE"] = database["CONN_MAX_AGE"], 0
    yield
    database["CONN_MAX_AGE"] = previous


@pytest.fixture
def alice_token(alice):
    return token_for(alice)


@pytest.fixture
def bob_token(bob):
    return token_for(bob)
