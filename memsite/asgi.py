"""The ASGI entry point: POST /mcp goes to the MCP server, everything else to Django.

Django runs as its WSGI application in a fixed pool of threads (as under a threaded WSGI
server), so its persistent database connections stay one per thread; lifespan events start
the MCP session manager.
"""

import os

from a2wsgi import WSGIMiddleware
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memsite.settings")
django_app = WSGIMiddleware(get_wsgi_application(), workers=4)

from mcp_server.server import PATH, http_app  # noqa: E402  (needs Django set up)
from memories import embeddings  # noqa: E402

# Load the embedding model with the process, not on its first store or recall.
embeddings.get_provider()


def build_application():
    """A new application; each has its own MCP session manager, which its lifespan runs once."""
    mcp_app = http_app()

    async def application(scope, receive, send):
        if scope["type"] == "lifespan" or scope.get("path") == PATH:
            await mcp_app(scope, receive, send)
        else:
            await django_app(scope, receive, send)

    return application


application = build_application()
