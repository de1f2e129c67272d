"""associate_memories, as AutoMem's MCP tool documents it (seed 004).

Over MCP `type` and `strength` are required (REST defaults them); a missing or out-of-range one,
an empty or oversized batch, or a batch mixed with top-level pair fields is refused before
anything is written. The rest is POST /associate's validation and writing.
"""

from typing import Annotated

from mcp.types import CallToolResult

from graph.api import specs
from graph.api.views import associate_batch, associate_one
from graph.models import AUTHORABLE_RELATIONS
from mcp_server.calls import run
from mcp_server.shapes import AssociateAnswer, StrictTool, annotations, arg
from memsite.api.specs import validate
from memsite.errors import Invalid
from memsite.validation import is_finite_within, is_number

TOOL = "associate_memories"
IDS = ("memory1_id", "memory2_id")
TYPES = sorted(AUTHORABLE_RELATIONS)
PAIR_SCHEMA = {
    "memory1_id": {"type": "string", "description": "Source memory ID (from store_memory or recall_memory)."},
    "memory2_id": {"type": "string", "description": "Target memory ID to link to."},
    "type": {"type": "string", "enum": TYPES, "description": "Relationship type."},
    "strength": {
        "type": "number",
        "minimum": 0,
        "maximum": 1,
        "description": "Relationship strength, 0-1; no default over MCP (0.8 suits most links).",
    },
}
Property = arg("Relation property, kept on the association for the types that take it.")


def _check_pair(fields, where):
    """MCP's own rules for one pair: every field present, strength a number within 0-1."""
    if fields.get("type") in (None, ""):
        raise Invalid(f"{TOOL}: {where} type is required")
    strength = fields.get("strength")
    if strength is None:
        raise Invalid(f"{TOOL}: {where} strength is required")
    if not is_number(strength) or not is_finite_within(strength, 0, 1):
        raise Invalid(f"{TOOL}: {where} strength must be a number between 0 and 1")


def _check_batch(items, mixed):
    if mixed:
        raise Invalid(f"{TOOL}: 'associations' cannot be combined with {', '.join(mixed)}")
    if not isinstance(items, list):
        raise Invalid(f"{TOOL}: 'associations' must be an array")
    specs.parse_items(items)
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise Invalid(f"{TOOL}: associations[{index}] must be an object")
        missing = [name for name in IDS if item.get(name) in (None, "")]
        if missing:
            raise Invalid(f"{TOOL}: associations[{index}] needs {' and '.join(missing)}")
        _check_pair(item, f"associations[{index}]")


def _associate(user, pair, properties, items):
    if items is not None:
        _check_batch(items, [name for name, value in {**pair, **properties}.items() if value is not None])
        answer = associate_batch(user.id, items)
        success = not answer["failed"]
        return answer["summary"], {"success": success, "message": answer["summary"], **answer}
    validate(specs.PAIR_IDS, pair)
    _check_pair(pair, "single association")
    given = {name: value for name, value in properties.items() if value is not None}
    answer = associate_one(user.id, {**pair, **given})
    return answer["message"], {"success": True, **answer}


async def associate_memories(
    memory1_id: arg(**PAIR_SCHEMA["memory1_id"]) = None,
    memory2_id: arg(**PAIR_SCHEMA["memory2_id"]) = None,
    type: arg(**PAIR_SCHEMA["type"]) = None,
    strength: arg(**PAIR_SCHEMA["strength"]) = None,
    associations: arg(
        "Batch mode: 1-500 associations, each with memory1_id, memory2_id, type and strength (and the "
        "relation properties of its type). Do not combine with the top-level pair fields.",
        type="array",
        minItems=1,
        maxItems=500,
        items={"type": "object", "properties": PAIR_SCHEMA},
    ) = None,
    reason: Property = None,
    context: Property = None,
    pattern_type: Property = None,
    confidence: Property = None,
    resolution: Property = None,
    observations: Property = None,
    timestamp: Property = None,
    transformation: Property = None,
    role: Property = None,
) -> Annotated[CallToolResult, AssociateAnswer]:
    """Link two of your memories with a typed, directed relationship, or many at once.

    Types: RELATES_TO (general), LEADS_TO (causal), OCCURRED_BEFORE (temporal), PREFERS_OVER
    (chosen over an alternative; context, reason), EXEMPLIFIES (example of a pattern;
    pattern_type, confidence), CONTRADICTS (resolution, reason), REINFORCES (observations),
    INVALIDATED_BY (superseded by a correction; reason, timestamp), EVOLVED_INTO (updated version;
    confidence, reason), DERIVED_FROM (transformation, confidence), PART_OF (role, context).
    Strength 0.9-1 is direct causation, 0.7-0.9 strong, 0.5-0.7 moderate, below 0.3 rather not.
    Always link a user's correction to what it corrects (INVALIDATED_BY) and a decision to the
    alternatives it rejected (PREFERS_OVER). Repeating a link updates it (idempotent).
    For many links pass `associations` (1-500 items): `success` is false when any item failed and
    `failed` lists each one with its reason.
    """
    pair = {"memory1_id": memory1_id, "memory2_id": memory2_id, "type": type, "strength": strength}
    properties = {
        "reason": reason,
        "context": context,
        "pattern_type": pattern_type,
        "confidence": confidence,
        "resolution": resolution,
        "observations": observations,
        "timestamp": timestamp,
        "transformation": transformation,
        "role": role,
    }
    return await run(lambda user: _associate(user, pair, properties, associations))


TOOLS = [StrictTool.from_function(associate_memories, annotations=annotations("Associate memories"))]
