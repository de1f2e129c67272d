"""Quality tools: one memory's quality, the report, and the inconsistency review queue."""

from typing import Annotated

from mcp.types import CallToolResult
from rest_framework.exceptions import ValidationError

from mcp_server.calls import run
from mcp_server.shapes import (
    InconsistencyAnswer,
    InconsistencyListAnswer,
    MemoryId,
    MemoryQualityAnswer,
    ReportAnswer,
    StrictTool,
    annotations,
    arg,
    spec_arg,
)
from mcp_server.tools.memories import given
from memories.queries import get_memory_for_user
from memsite.api.pagination import PAGE, Pagination
from memsite.api.specs import validate
from memsite.validation import body_as_query
from quality import queries, services
from quality.api import serializers as s
from quality.api import specs
from quality.filters import InconsistencyFilterSet
from quality.models import Inconsistency
from quality.services import Action

DISMISS = "dismiss"
FindingId = arg("The inconsistency's id, from list_inconsistencies.", type="integer")


async def memory_quality(memory_id: MemoryId) -> Annotated[CallToolResult, MemoryQualityAnswer]:
    """One memory's quality: the five dimensions and overall score, provenance, association boost
    state, recent assessments and boosts, and the inconsistencies that name it."""

    def work(user):
        body = s.MemoryQualitySerializer(queries.memory_quality(get_memory_for_user(user, memory_id))).data
        quality = body["quality"]
        text = f"Memory {body['memory_id']}: quality {quality['score']:.2f} ({quality['tier']})"
        return f"{text}, {len(body['inconsistencies'])} findings", body

    return await run(work, reads_only=True)


async def quality_report() -> Annotated[CallToolResult, ReportAnswer]:
    """A report on the quality of all your memories: statistics, dimension averages, open findings
    by type, the most common issues and recommendations (each with a code and a message)."""

    def work(user):
        body = queries.quality_report(user)
        stats = body["stats"]
        text = f"{stats['total_memories']} memories, average quality {stats['average_quality']:.2f}"
        return f"{text}, {len(body['recommendations'])} recommendations", body

    return await run(work, reads_only=True)


async def list_inconsistencies(
    type: arg("Kind of finding.", type="string", enum=Inconsistency.Type.values) = None,
    status: arg("Review status.", type="string", enum=Inconsistency.Status.values) = None,
    memory: arg("Only findings naming this memory (UUID).", type="string", format="uuid") = None,
    min_severity: arg("Least severity, 0-1.", type="number", minimum=0, maximum=1) = None,
    limit: spec_arg(PAGE, "limit", "Page size, 1-500 (default 50).") = None,
    offset: spec_arg(PAGE, "offset", "How many to skip (default 0).") = None,
) -> Annotated[CallToolResult, InconsistencyListAnswer]:
    """List contradictions, duplicates, outdated and low-confidence memories found by detection,
    most severe first. Review open ones with resolve_inconsistency."""
    params = body_as_query(
        given(type=type, status=status, memory=memory, min_severity=min_severity, limit=limit, offset=offset)
    )

    def work(user):
        findings = queries.inconsistencies_of(user).select_related("resolved_by")
        found = InconsistencyFilterSet(params, queryset=findings)
        if not found.is_valid():
            raise ValidationError(found.errors)
        paginator = Pagination()
        page = paginator.page(found.qs, params)
        body = {
            "count": paginator.count,
            "limit": paginator.limit,
            "offset": paginator.offset,
            "results": s.InconsistencySerializer(page, many=True).data,
        }
        return f"{len(body['results'])} of {body['count']} inconsistencies", body

    return await run(work, reads_only=True)


async def resolve_inconsistency(
    inconsistency_id: FindingId,
    action: arg(
        "keep_both; archive (memory_id: which one); merge (duplicates: memory_id is kept, default the "
        "better one); link_contradicts / link_invalidated_by (memory_id is the edge's source); dismiss.",
        type="string",
        enum=[*Action.ALL, DISMISS],
    ),
    memory_id: spec_arg(specs.RESOLVE, "memory_id", "The memory the action applies to (see action).") = None,
    reason: spec_arg(specs.RESOLVE, "reason", "Why; stored on the association for the link actions.") = None,
) -> Annotated[CallToolResult, InconsistencyAnswer]:
    """Resolve an open inconsistency (keep both, archive one, merge duplicates, or link them as
    CONTRADICTS / INVALIDATED_BY), or dismiss it so detection leaves it dismissed."""
    request = given(action=action, memory_id=memory_id, reason=reason)

    def work(user):
        finding = queries.get_inconsistency_for_user(user, inconsistency_id)
        if action == DISMISS:
            finding = services.dismiss_inconsistency(finding, user)
        else:
            fields = validate(specs.RESOLVE, request)
            finding = services.resolve_inconsistency(
                finding, fields["action"], user, fields.get("memory_id"), fields["reason"]
            )
        return f"Inconsistency {finding.pk} is {finding.status}", s.InconsistencySerializer(finding).data

    return await run(work)


TOOLS = [
    StrictTool.from_function(memory_quality, annotations=annotations("Memory quality", read_only=True)),
    StrictTool.from_function(quality_report, annotations=annotations("Quality report", read_only=True)),
    StrictTool.from_function(
        list_inconsistencies, annotations=annotations("List inconsistencies", read_only=True)
    ),
    StrictTool.from_function(
        resolve_inconsistency,
        annotations=annotations("Resolve an inconsistency", destructive=True, idempotent=False),
    ),
]
