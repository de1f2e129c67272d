"""Refuse JSON-RPC messages whose `id` MCP does not allow (a string or an integer), before the SDK,
which takes a message with another id for a notification and drops it with 202."""

import json

from django.conf import settings
from starlette.responses import JSONResponse

INVALID_REQUEST = -32600
BAD_ID = "Invalid Request: 'id' must be a string or an integer"


def _bad_id(message):
    if not isinstance(message, dict) or "id" not in message:
        return False
    value = message["id"]
    return isinstance(value, bool) or not isinstance(value, (str, int))


class RequestIdCheck:
    """Answer a POST whose message (or any message of a batch) has a forbidden `id` with a JSON-RPC
    error (400); pass everything else on with its body unchanged."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        chunks, size, more = [], 0, True
        while more and size <= settings.MAX_REQUEST_BYTES:
            event = await receive()
            if event["type"] != "http.request":
                await self.app(scope, _replay([event], receive), send)
                return
            chunks.append(event.get("body", b""))
            size += len(chunks[-1])
            more = event.get("more_body", False)
        body = b"".join(chunks)
        if not more and _refused(body):
            error = {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": BAD_ID}}
            await JSONResponse(error, status_code=400)(scope, receive, send)
            return
        replayed = [{"type": "http.request", "body": body, "more_body": more}]
        await self.app(scope, _replay(replayed, receive), send)


def _refused(body):
    try:
        message = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return False
    messages = message if isinstance(message, list) else [message]
    return any(_bad_id(item) for item in messages)


def _replay(events, receive):
    pending = list(events)

    async def replayed():
        return pending.pop(0) if pending else await receive()

    return replayed
