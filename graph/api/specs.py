"""The requests of the graph endpoints as specs (memsite.api.specs), in AutoMem's order of checks
and with its messages: a pair's strength first, then both ids given, each id well-formed, not a
self-link, the relation type and the properties that type takes."""

from dataclasses import replace

from graph.models import AUTHORABLE_RELATIONS, RELATION_PROPERTIES
from graph.services import Link
from memsite.api.specs import Field, Rule, body_schema, integer, strict, unit
from memsite.errors import Invalid
from memsite.validation import (
    check_json_value,
    is_finite_within,
    is_number,
    parse_timestamp,
    parse_uuid,
    read_number,
)

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
PROPERTY_NAMES = sorted({name for names in AUTHORABLE_RELATIONS.values() for name in names})


def parse_strength(value, default=DEFAULT_STRENGTH):
    """A strength: `default` when absent or null, else a number in 0.0-1.0 (AutoMem's messages,
    which name 'importance')."""
    if value is None:
        return default
    strength = read_number(value)
    if strength is None:
        raise Invalid(NOT_A_NUMBER)
    if not is_finite_within(strength, 0.0, 1.0):
        raise Invalid(OUT_OF_RANGE)
    return float(strength)


def _present(value):
    return bool(value.strip()) if isinstance(value, str) else bool(value)


def both_ids_given(body, values):
    if not (_present(body.get("memory1_id")) and _present(body.get("memory2_id"))):
        raise Invalid(REQUIRED)


def id_field(name, message=INVALID_UUID):
    """One of the pair's ids (checked after both_ids_given); batch messages name the field."""
    return Field(name, lambda value: parse_uuid(value, message), {"type": "string", "format": "uuid"}, True)


def not_a_self_link(body, values):
    if values["memory1_id"] == values["memory2_id"]:
        raise Invalid(SELF_LINK)


def type_field(choices=AUTHORABLE_RELATIONS, default=DEFAULT_TYPE):
    """The relation type, upper-cased; `default` when absent or empty."""
    message = TYPE_CHOICES if choices is AUTHORABLE_RELATIONS else ANY_TYPE_CHOICES

    def read(value):
        if not _present(value):
            return default
        relation_type = value.strip().upper() if isinstance(value, str) else None
        if relation_type not in choices:
            raise Invalid(message)
        return relation_type

    schema = {"type": "string", "enum": sorted(choices)}
    return Field("type", read, {**schema, "default": default} if default else schema)


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
    if not is_number(value):
        raise Invalid(f"'{name}' must be a number")
    if not is_finite_within(value, 0.0, 1.0):
        raise Invalid(f"'{name}' must be between 0 and 1")
    return float(value)


def read_properties(body, values):
    """The properties the relation type takes, each checked; those of other types are ignored and
    named in `ignored` (the answer lists them)."""
    taken = AUTHORABLE_RELATIONS[values["type"]]
    values["properties"] = {
        name: parse_property(name, body[name]) for name in taken if body.get(name) is not None
    }
    values["ignored"] = [name for name in PROPERTY_NAMES if name not in taken and body.get(name) is not None]


PROPERTIES = Rule(
    read_properties,
    dict.fromkeys(PROPERTY_NAMES, {"description": "A relation property (see /graph/relations)."}),
)
STRENGTH = Field(
    "strength", parse_strength, {"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULT_STRENGTH}
)
PAIR_IDS = (Rule(both_ids_given), id_field("memory1_id"), id_field("memory2_id"))
PAIR = strict(
    (
        STRENGTH,
        *PAIR_IDS,
        Rule(not_a_self_link),
        type_field(),
        PROPERTIES,
    )
)
BATCH_PAIR = strict(
    (
        STRENGTH,
        Rule(both_ids_given),
        id_field("memory1_id", "'memory1_id' must be a valid UUID"),
        id_field("memory2_id", "'memory2_id' must be a valid UUID"),
        Rule(not_a_self_link),
        type_field(),
        PROPERTIES,
    )
)


def parse_items(value):
    """A batch's items (1-500); an `associations` that is not an array makes the body a single pair."""
    if not value:
        raise Invalid(BATCH_EMPTY)
    if len(value) > MAX_BATCH:
        raise Invalid(BATCH_SIZE)
    return value


BATCH = strict(
    (
        Field(
            "associations",
            parse_items,
            {"type": "array", "items": body_schema(BATCH_PAIR), "minItems": 1, "maxItems": MAX_BATCH},
            required=True,
        ),
    )
)
ASSOCIATE = {"application/json": {"oneOf": [body_schema(PAIR), body_schema(BATCH)]}}
DISSOCIATE = strict((*PAIR_IDS, type_field(RELATION_PROPERTIES, default=None)))
PROMOTE = strict(
    (
        type_field(),
        Field(
            "strength",
            lambda value: parse_strength(value, default=None),
            {"type": "number", "minimum": 0, "maximum": 1, "description": "Kept as discovered when absent."},
        ),
        PROPERTIES,
    )
)


def link(values):
    """The Link a pair's clean values describe (its ignored properties are the answer's)."""
    return Link(
        values["memory1_id"], values["memory2_id"], values["type"], values["strength"], values["properties"]
    )


def read_ids(body, values):
    """`ids` (or `memory_ids`): 1 to MAX_BATCH memory UUIDs."""
    raw_ids = body.get("ids", body.get("memory_ids"))
    if not isinstance(raw_ids, list) or not raw_ids or len(raw_ids) > MAX_BATCH:
        raise Invalid(f"'ids' must be a list of 1 to {MAX_BATCH} memory ids")
    values["ids"] = [parse_uuid(value) for value in raw_ids]


IDS = {"type": "array", "items": {"type": "string", "format": "uuid"}, "minItems": 1, "maxItems": MAX_BATCH}
REPROCESS = (Rule(read_ids, {"ids": IDS, "memory_ids": {**IDS, "description": "Another name for `ids`."}}),)


def types_field(name):
    """Relation types, repeated or comma-separated, case-insensitive."""

    def read(raws):
        values = [part.strip().upper() for raw in raws for part in raw.split(",") if part.strip()]
        if any(value not in RELATION_PROPERTIES for value in values):
            raise Invalid(ANY_TYPE_CHOICES)
        return set(values)

    schema = {
        "type": "array",
        "items": {"type": "string", "enum": sorted(RELATION_PROPERTIES)},
        "description": "Relation types, comma-separated.",
    }
    return Field(name, read, schema, key="types", many=True)


NEIGHBORS = strict(
    (
        integer("depth", 1, 1, 3, "Hops, both directions."),
        types_field("types"),
        unit("min_strength", 0.0),
    )
)
RELATED = strict(
    (
        replace(integer("max_depth", 1, 1, 3), key="depth"),
        types_field("relationship_types"),
        unit("min_strength", 0.0),
        integer("limit", 5, 1, 100),
    )
)
SNAPSHOT = strict(
    (
        integer("limit", 500, 1, MAX_BATCH, "Nodes (like every list, at most 500)."),
        types_field("types"),
        unit("min_importance", 0.0),
    )
)
