"""check_health: is the service able to answer."""

from typing import Annotated

from mcp.types import CallToolResult

from mcp_server.calls import run
from mcp_server.shapes import HealthAnswer, StrictTool, annotations
from memsite.health import service_health


async def check_health() -> Annotated[CallToolResult, HealthAnswer]:
    """Check that memsite can answer: the database, the pgvector and Apache AGE extensions."""

    def work(user):
        body = service_health()
        parts = f"database {body['database']}, pgvector {body['pgvector']}, AGE {body['age']}"
        return f"{body['status']}: {parts}", body

    return await run(work)


TOOLS = [StrictTool.from_function(check_health, annotations=annotations("Check health", read_only=True))]
