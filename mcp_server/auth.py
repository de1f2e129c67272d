"""Who calls: the REST API's tokens, for the HTTP transport and for stdio."""

from types import SimpleNamespace

from asgiref.sync import sync_to_async
from django.db import close_old_connections
from rest_framework.exceptions import AuthenticationFailed
from starlette.datastructures import Headers
from starlette.responses import JSONResponse

from mcp_server.calls import caller
from memsite.api.authentication import ApiTokenAuthentication
from memsite.api.exceptions import envelope
from memsite.models import ApiToken

MISSING = "Authentication credentials were not provided."


def _authenticate(headers):
    """(user or None, message): REST's token authentication applied to these headers."""
    close_old_connections()
    try:
        found = ApiTokenAuthentication().authenticate(SimpleNamespace(headers=headers))
    except AuthenticationFailed as error:
        return None, str(error.detail)
    finally:
        close_old_connections()
    return (found[0], "") if found else (None, MISSING)


class TokenAuthMiddleware:
    """Admit HTTP requests carrying a valid API token (`Authorization: Bearer` or `X-API-Key`),
    answer the others 401 with the REST envelope; the tools then act for the token's user."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        user, message = await sync_to_async(_authenticate, thread_sensitive=False)(Headers(scope=scope))
        if user is None:
            headers = {"WWW-Authenticate": ApiTokenAuthentication().authenticate_header(None)}
            await JSONResponse(envelope(401, message), status_code=401, headers=headers)(scope, receive, send)
            return
        token = caller.set(user)
        try:
            await self.app(scope, receive, send)
        finally:
            caller.reset(token)


def user_for_token(plain):
    """The active user owning the API token `plain`, or None."""
    token = ApiToken.find(plain.strip()) if plain.strip() else None
    return token.user if token else None
