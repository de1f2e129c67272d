import anyio
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from mcp_server.auth import user_for_token
from mcp_server.calls import caller
from mcp_server.server import server
from memories import embeddings

HOW = "create one with `python manage.py issue_token USERNAME` and export it as MEMSITE_MCP_TOKEN"


class Command(BaseCommand):
    help = "Serve the MCP tools over stdio, acting for the owner of the API token in MEMSITE_MCP_TOKEN."

    def handle(self, *args, **options):
        if not settings.MCP_TOKEN.strip():
            raise CommandError(f"MEMSITE_MCP_TOKEN is not set: {HOW}")
        user = user_for_token(settings.MCP_TOKEN)
        if user is None:
            raise CommandError(f"MEMSITE_MCP_TOKEN is not a valid API token of an active user: {HOW}")
        # Load the embedding model now, not on the first recall (seconds on a small machine).
        embeddings.get_provider().embed("warm up")
        connection.close()
        caller.set(user)
        anyio.run(server.run_stdio_async)
