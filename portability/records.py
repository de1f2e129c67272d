"""memsite's own export format, JSON Lines: what each line holds and how a line is read.

The first line is a header (`{"kind": "header", "format": "memsite", "version": 1, ...}`); every
other line is one record whose `kind` is memory, association, finding, boost or assessment
(docs/export-format.schema.json). A line is read with the API's own rules and messages (a memory as
POST /memory reads it, an association as POST /associate does); a bad line raises Invalid and fails
alone. Fields marked read-only in the schema are written by an export and ignored by an import:
the service derives them again (validity from INVALIDATED_BY associations, quality by evaluation).
"""

import json

from graph.api.specs import parse_property, parse_strength
from graph.models import RELATION_PROPERTIES, Origin
from memories.api import specs as memory_specs
from memsite.api.specs import validate
from memsite.errors import Invalid
from memsite.validation import check_json_value, is_clean_text, parse_flag, parse_timestamp
from quality.models import Inconsistency, QualityBoost, Trigger

FORMAT = "memsite"
VERSION = 1
KINDS = ("memory", "association", "finding", "boost", "assessment")
MAX_LINE_BYTES = 64 * 1024
MAX_ID_LENGTH = 200
QUALITY_DIMENSIONS = ("accuracy", "completeness", "consistency", "timeliness", "relevance", "overall")


def parse_line(text):
    """The decoded JSON object of one line, or Invalid."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_LINE_BYTES:
        raise Invalid(f"Line exceeds the maximum of {MAX_LINE_BYTES} bytes")
    try:
        record = json.loads(text)
    except ValueError:
        raise Invalid("Line is not valid JSON") from None
    if not isinstance(record, dict):
        raise Invalid("Line must be a JSON object")
    if record.get("kind") not in (*KINDS, "header"):
        raise Invalid(f"'kind' must be one of {', '.join(KINDS)}")
    return record


def read_header(record):
    if record.get("kind") != "header" or record.get("format") != FORMAT:
        raise Invalid(f'The first line must be the header: {{"kind": "header", "format": "{FORMAT}", ...}}')
    if record.get("version") != VERSION:
        raise Invalid(f"Unsupported format version {record.get('version')!r}; this service reads {VERSION}")
    return record


def record_id(record, field="id"):
    """An id of the file (any text of at most MAX_ID_LENGTH characters, or an integer)."""
    value = record.get(field)
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if (
        not isinstance(value, str)
        or not value.strip()
        or len(value) > MAX_ID_LENGTH
        or not is_clean_text(value)
    ):
        raise Invalid(f"'{field}' must be an id of at most {MAX_ID_LENGTH} characters")
    return value.strip()


def _optional_time(record, field):
    value = record.get(field)
    return None if value in (None, "") else parse_timestamp(value, field)


def _text(record, field, max_length):
    return memory_specs.parse_short_text(record.get(field), field, max_length)


def read_memory(record):
    """The item POST /memory would store, with the fields only an import sets."""
    data = {name: record.get(name) for name in ("content", "tags", "importance", "metadata", "type")}
    data |= {name: record.get(name) for name in ("source_type", "source_id", "is_explicit", "valid_from")}
    data["timestamp"] = record.get("created_at")
    item = validate(memory_specs.MEMORY, data)
    item["supersedes"] = []
    item["id"] = record_id(record)
    item["updated_at"] = _optional_time(record, "updated_at")
    item["archived_at"] = _optional_time(record, "archived_at")
    item["archive_reason"] = _text(record, "archive_reason", 200) if item["archived_at"] else ""
    item["protected"] = parse_flag(record.get("protected"), "protected")
    sources = record.get("corroborating_sources") or []
    if not isinstance(sources, list) or len(sources) > memory_specs.MAX_TAGS:
        raise Invalid(f"'corroborating_sources' must be a list of at most {memory_specs.MAX_TAGS} ids")
    item["corroborating_sources"] = list(
        dict.fromkeys(
            memory_specs.parse_short_text(source, "corroborating_sources", 200) for source in sources
        )
    )
    return item


def _choice(record, field, choices, default=None):
    value = record.get(field, default)
    if value not in choices:
        raise Invalid(f"'{field}' must be one of {', '.join(sorted(choices))}")
    return value


def _unit(record, field, default=None):
    value = record.get(field, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise Invalid(f"'{field}' must be a number between 0 and 1")
    return float(value)


def read_association(record):
    relation_type = record.get("type")
    relation_type = relation_type.strip().upper() if isinstance(relation_type, str) else None
    if relation_type not in RELATION_PROPERTIES:
        raise Invalid(f"Relation type must be one of {sorted(RELATION_PROPERTIES)}")
    source, target = record_id(record, "source"), record_id(record, "target")
    if source == target:
        raise Invalid("Cannot associate a memory with itself")
    properties = record.get("properties") or {}
    if not isinstance(properties, dict):
        raise Invalid("'properties' must be an object")
    return {
        "source": source,
        "target": target,
        "type": relation_type,
        "strength": parse_strength(record.get("strength")),
        "origin": _choice(record, "origin", set(Origin.values), Origin.USER),
        "properties": {
            name: parse_property(name, properties[name])
            for name in RELATION_PROPERTIES[relation_type]
            if properties.get(name) is not None
        },
    }


def read_finding(record):
    memory2 = record.get("memory2")
    details = record.get("details") or {}
    if not isinstance(details, dict):
        raise Invalid("'details' must be an object")
    return {
        "details": check_json_value(details, "details"),
        "type": _choice(record, "type", set(Inconsistency.Type.values)),
        "memory1": record_id(record, "memory1"),
        "memory2": None if memory2 is None else record_id(record, "memory2"),
        "severity": _unit(record, "severity"),
        "description": _text(record, "description", 2000),
        "status": _choice(record, "status", set(Inconsistency.Status.values), Inconsistency.Status.OPEN),
        "resolution": _text(record, "resolution", 40),
        "detected_at": _optional_time(record, "detected_at"),
        "resolved_at": _optional_time(record, "resolved_at"),
    }


def _count(record, field):
    value = record.get(field, 0)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 2**31 - 1:
        raise Invalid(f"'{field}' must be a non-negative integer")
    return value


def _positive(record, field, default):
    value = record.get(field, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1e6:
        raise Invalid(f"'{field}' must be a number between 0 and 1000000")
    return float(value)


def read_boost(record):
    return {
        "id": record_id(record),
        "memory": record_id(record, "memory"),
        "kind": _choice(record, "boost_kind", set(QualityBoost.Kind.values)),
        "connection_count": _count(record, "connection_count"),
        "quality_before": _unit(record, "quality_before"),
        "quality_after": _unit(record, "quality_after"),
        "factor": _positive(record, "factor", 1),
        "created_at": _optional_time(record, "created_at"),
    }


def read_assessment(record):
    weights = record.get("weights") or {}
    if not isinstance(weights, dict):
        raise Invalid("'weights' must be an object")
    return {
        "id": record_id(record),
        "memory": record_id(record, "memory"),
        **{name: _unit(record, name) for name in QUALITY_DIMENSIONS},
        "weights": check_json_value(weights, "weights"),
        "query": _text(record, "query", 2000),
        "trigger": _choice(record, "trigger", set(Trigger.values)),
        "evaluated_at": _optional_time(record, "evaluated_at"),
    }


READERS = {
    "memory": read_memory,
    "association": read_association,
    "finding": read_finding,
    "boost": read_boost,
    "assessment": read_assessment,
}


def read_record(record):
    """The clean record of a parsed line (parse_line) that is not the header; Invalid otherwise."""
    if record["kind"] == "header":
        raise Invalid("A header may only be the first line")
    return READERS[record["kind"]](record)
