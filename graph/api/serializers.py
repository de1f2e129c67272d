"""Validation of POST/DELETE /associate bodies, in the order and with the messages of AutoMem.

The checks run in a fixed order whose first failure ends a single request, which DRF field
serializers cannot express, so each step is a small function raising `Invalid`.
"""

import math

from graph.models import AUTHORABLE_RELATIONS, RELATION_PROPERTIES
from graph.services import Link
from memsite.errors import Invalid
from memsite.validation import check_json_value, parse_timestamp, parse_uuid

MAX_BATCH = 500
MAX_PROPERTY_LENGTH = 1000
MAX_PROPERTY_ITEMS = 100
# Property numbers reach the graph, whose agtype holds 64-bit values.
MAX_PROPERTY_MAGNITUDE = 1e15
DEFAULT_STRENGTH = 0.5
DEFAULT_TYPE = "RELATES_TO"
REQUIRED = "'memory1_id' and 'memory2_id' are required"
INVALID_UUID = "memory_id must be a valid UUID"
SELF_LINK = "Cannot associate a memory with itself"
NOT_A_NUMBER = "'importance' must be a number"
OUT_OF_RANGE = "'importance' must be between 0 and 1"
NOT_AN_OBJECT = "Association must be an object"
BATCH_EMPTY = "'associations' must be a non-empty array"
BATCH_SIZE = f"Batch size limit is {MAX_BATCH} associations per request"
TYPE_CHOICES = f"Relation type must be one of {sorted(AUTHORABLE_RELATIONS)}"
ANY_TYPE_CHOICES = f"Relation type must be one of {sorted(RELATION_PROPERTIES)}"


def parse_strength(body):
    """The strength of a body: 0.5 when absent or null, else a number in 0.0-1.0."""
    value = body.get("strength")
    if value is None:
        return DEFAULT_STRENGTH
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise Invalid(NOT_A_NUMBER)
    try:
        strength = float(value)
    except (ValueError, OverflowError):
        raise Invalid(NOT_A_NUMBER) from None
    if not math.isfinite(strength) or not 0.0 <= strength <= 1.0:
        raise Invalid(OUT_OF_RANGE)
    return strength


def _present(value):
    return bool(value.strip()) if isinstance(value, str) else bool(value)


def parse_ids(body, batch):
    """Both ids as UUIDs: required first, then well-formed (batch messages name the field)."""
    if not (_present(body.get("memory1_id")) and _present(body.get("memory2_id"))):
        raise Invalid(REQUIRED)
    return [
        parse_uuid(body[name], f"'{name}' must be a valid UUID" if batch else INVALID_UUID)
        for name in ("memory1_id", "memory2_id")
    ]


def parse_type(body, choices=AUTHORABLE_RELATIONS, default=DEFAULT_TYPE):
    """The relation type, upper-cased; `default` when absent or empty."""
    value = body.get("type")
    if not _present(value):
        return default
    relation_type = value.strip().upper() if isinstance(value, str) else None
    if relation_type not in choices:
        raise Invalid(TYPE_CHOICES if choices is AUTHORABLE_RELATIONS else ANY_TYPE_CHOICES)
    return relation_type


def parse_link(body, strength, batch):
    """One association after strength: ids, self-link, type, then its whitelisted properties."""
    source, target = parse_ids(body, batch)
    if source == target:
        raise Invalid(SELF_LINK)
    relation_type = parse_type(body)
    properties = {
        name: parse_property(name, body[name])
        for name in AUTHORABLE_RELATIONS[relation_type]
        if body.get(name) is not None
    }
    return Link(source, target, relation_type, strength, properties)


def parse_property(name, value):
    """A relation property: text of at most MAX_PROPERTY_LENGTH characters, a number, a boolean or a
    list of those; `confidence` is 0–1 and `timestamp` an ISO 8601 date in the supported range."""
    if name == "confidence":
        return _unit_number(value, name)
    if name == "timestamp":
        return parse_timestamp(value, name, f"'{name}' must be an ISO 8601 timestamp").isoformat()
    values = value if isinstance(value, list) else [value]
    if len(values) > MAX_PROPERTY_ITEMS or not all(_scalar(item) for item in values):
        raise Invalid(
            f"'{name}' must be text of at most {MAX_PROPERTY_LENGTH} characters, a number, a boolean, "
            f"or a list of at most {MAX_PROPERTY_ITEMS} of those"
        )
    return check_json_value(value, name, MAX_PROPERTY_MAGNITUDE)


def _scalar(value):
    if isinstance(value, str):
        return len(value) <= MAX_PROPERTY_LENGTH
    return isinstance(value, (bool, int, float))


def _unit_number(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise Invalid(f"'{name}' must be a number")
    if not 0.0 <= value <= 1.0:
        raise Invalid(f"'{name}' must be between 0 and 1")
    return float(value)


def batch_items(body):
    """The `associations` list when the body is a batch (an array there), else None."""
    items = body.get("associations")
    if not isinstance(items, list):
        return None
    if not items:
        raise Invalid(BATCH_EMPTY)
    if len(items) > MAX_BATCH:
        raise Invalid(BATCH_SIZE)
    return items


def batch_strengths(items):
    """Every item's strength, checked before anything else: one bad value rejects the batch."""
    return [parse_strength(item) if isinstance(item, dict) else None for item in items]


def link_record(link, index=None):
    """How a created association is echoed back (with its relation properties)."""
    record = {} if index is None else {"index": index}
    record.update(
        memory1_id=str(link.source),
        memory2_id=str(link.target),
        relation_type=link.relation_type,
        strength=link.strength,
        **link.properties,
    )
    return record


def _pair_schema(relation_types, with_properties=True):
    """One pair as the OpenAPI document shows it, built from the rules above."""
    properties = {
        "memory1_id": {"type": "string", "format": "uuid"},
        "memory2_id": {"type": "string", "format": "uuid"},
        "type": {"type": "string", "enum": sorted(relation_types), "default": DEFAULT_TYPE},
    }
    if with_properties:
        properties["strength"] = {"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULT_STRENGTH}
        names = sorted({name for names in AUTHORABLE_RELATIONS.values() for name in names})
        note = {"description": "A relation property (see /graph/relations)."}
        properties.update(dict.fromkeys(names, note))
    return {"type": "object", "properties": properties, "required": ["memory1_id", "memory2_id"]}


ASSOCIATE_SCHEMA = {
    "oneOf": [
        _pair_schema(AUTHORABLE_RELATIONS),
        {
            "type": "object",
            "properties": {
                "associations": {
                    "type": "array",
                    "items": _pair_schema(AUTHORABLE_RELATIONS),
                    "minItems": 1,
                    "maxItems": MAX_BATCH,
                }
            },
            "required": ["associations"],
        },
    ]
}
DISSOCIATE_SCHEMA = _pair_schema(RELATION_PROPERTIES, with_properties=False)
