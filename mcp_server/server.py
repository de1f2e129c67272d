"""The memsite MCP server: its tools, and its streamable HTTP endpoint at /mcp."""

from django.conf import settings
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

from mcp_server.auth import TokenAuthMiddleware
from mcp_server.jsonrpc import RequestIdCheck
from mcp_server.tools import graph, health, memories, quality

PATH = "/mcp"
SCHEMES = ("http", "https")
INSTRUCTIONS = (
    "Long-term memory. Recall before answering questions about past work, preferences or "
    "decisions; store durable facts, decisions and corrections; link related memories with "
    "associate_memories (a correction INVALIDATED_BY-links what it corrects)."
)

server = MCPServer(
    "memsite",
    title="memsite",
    instructions=INSTRUCTIONS,
    version=settings.VERSION,
    tools=[*memories.TOOLS, *graph.TOOLS, *quality.TOOLS, *health.TOOLS],
)


def transport_security():
    """Host and Origin checks against ALLOWED_HOSTS (none when it allows any host)."""
    hosts = settings.ALLOWED_HOSTS
    if "*" in hosts:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    origins = [f"{scheme}://{host}{port}" for host in hosts for scheme in SCHEMES for port in ("", ":*")]
    return TransportSecuritySettings(
        allowed_hosts=[*hosts, *(f"{host}:*" for host in hosts)],
        allowed_origins=[*origins, *settings.CSRF_TRUSTED_ORIGINS],
    )


def http_app():
    """The ASGI app answering POST /mcp: stateless, JSON responses, behind token authentication.

    Its lifespan runs the SDK's session manager, so the ASGI server must send lifespan events.
    """
    app = server.streamable_http_app(
        streamable_http_path=PATH,
        stateless_http=True,
        json_response=True,
        max_request_body_size=settings.MAX_REQUEST_BYTES,
        transport_security=transport_security(),
    )
    return TokenAuthMiddleware(RequestIdCheck(app))
