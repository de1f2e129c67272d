"""How every tool runs: for the caller, in a worker thread, answering like the REST API.

A tool's work is a plain function `work(user) -> (short text, data)` calling the same services,
queries and request specs as the REST views. Errors become tool errors in `error_result`, the one
place that maps them, through the REST exception handler, so codes and messages are REST's.
"""

import contextvars
import json
from types import SimpleNamespace

from asgiref.sync import sync_to_async
from django.db import close_old_connections
from mcp.types import CallToolResult, TextContent
from rest_framework.exceptions import NotAuthenticated, Throttled
from rest_framework.settings import api_settings
from rest_framework.utils.encoders import JSONEncoder

from memsite import replicas
from memsite.api.exceptions import envelope_exception_handler

# The user the tools act for: set per HTTP request by the token middleware, once for stdio.
caller = contextvars.ContextVar("memsite_mcp_caller", default=None)


def as_json(data):
    """Data in the JSON form the REST API sends (UUIDs and dates as strings)."""
    return json.loads(json.dumps(data, cls=JSONEncoder))


def text_result(text, data):
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=as_json(data))


def error_result(exc):
    """Any error as a tool error whose structured content is REST's envelope for it."""
    body = envelope_exception_handler(exc, {}).data
    return CallToolResult(
        content=[TextContent(type="text", text=body["message"])], structured_content=body, is_error=True
    )


def check_rate(user):
    """The REST API's throttles apply to tool calls too, with the same per-user budget."""
    caller_request = SimpleNamespace(user=user, META={})
    for throttle in (throttle_class() for throttle_class in api_settings.DEFAULT_THROTTLE_CLASSES):
        if not throttle.allow_request(caller_request, None):
            raise Throttled(throttle.wait())


def _run(work, user, reads_only):
    close_old_connections()
    try:
        if user is None:
            raise NotAuthenticated()
        check_rate(user)
        with replicas.serving(lambda: user, reads_only) as scope:
            try:
                return text_result(*work(user))
            except Exception:
                scope.succeeded = False
                raise
    except Exception as exc:
        return error_result(exc)
    finally:
        close_old_connections()


async def run(work, reads_only=False):
    """Run `work(user)` for the caller in a worker thread (each keeps its database connection).

    A tool that only reads (`reads_only`) may read from a replica, like a GET request.
    """
    return await sync_to_async(_run, thread_sensitive=False)(work, caller.get(), reads_only)
