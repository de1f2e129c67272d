"""The requests of the memory endpoints, with AutoMem's messages, checked in AutoMem's order.

Each reader takes the decoded JSON value and returns the clean Python value, or raises Invalid
(400) with the exact message; each spec lists its fields in the order they are checked and is also
what the OpenAPI document shows (memsite.api.specs). Anything a client can send ends as a 4xx.
"""

import json

from django.conf import settings

from memories.models import MemoryType
from memsite.api.specs import TIMESTAMP, Field, Rule, body_schema, described, strict, with_readers
from memsite.errors import Invalid
from memsite.validation import (
    check_json_value,
    is_clean_text,
    is_finite_within,
    parse_flag,
    parse_timestamp,
    parse_uuid,
    read_number,
)

MAX_CONTENT_LENGTH = 2000
MAX_TAGS = 100
MAX_TAG_LENGTH = 100
MAX_SOURCE_TYPE_LENGTH = 40
MAX_SOURCE_ID_LENGTH = 200
MAX_BATCH = 500
MAX_SUPERSEDES = 20
MAX_REEMBED_IDS = 10_000
DEFAULT_REEMBED_BATCH = 256
MAX_REEMBED_BATCH = 1024
MEMORY_TYPES = {choice.lower(): choice for choice in MemoryType.values}
VALID_TYPES = ", ".join(sorted(MemoryType.values))
TAGS = {"type": "array", "items": {"type": "string", "maxLength": MAX_TAG_LENGTH}, "maxItems": MAX_TAGS}


def parse_content(value):
    if value is None or (isinstance(value, str) and not value.strip()):
        raise Invalid("'content' is required")
    if not isinstance(value, str):
        raise Invalid("'content' must be a string")
    content = value.strip()
    if len(content) > MAX_CONTENT_LENGTH:
        raise Invalid(
            f"Content exceeds maximum length of {MAX_CONTENT_LENGTH} characters ({len(content)} provided)"
        )
    if not is_clean_text(content):
        raise Invalid("'content' contains characters that cannot be stored")
    return content


def parse_tags(value):
    """A list of strings or one string: stripped, lower-cased, blanks dropped, duplicates merged."""
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(tag, str) for tag in value):
        raise Invalid("'tags' must be a list of strings or a single string")
    if len(value) > MAX_TAGS:
        raise Invalid(f"'tags' must contain at most {MAX_TAGS} tags ({len(value)} provided)")
    tags = []
    for raw in value:
        tag = raw.strip().lower()
        if len(tag) > MAX_TAG_LENGTH:
            raise Invalid(f"Each tag must be at most {MAX_TAG_LENGTH} characters")
        if not is_clean_text(tag):
            raise Invalid("'tags' contains characters that cannot be stored")
        if tag and tag not in tags:
            tags.append(tag)
    return tags


def parse_importance(value, default=0.5):
    """A number (or a number's text) within 0–1; absent or null is `default`."""
    if value is None:
        return default
    score = read_number(value)
    if score is None:
        raise Invalid("'importance' must be a number")
    if not is_finite_within(score, 0, 1):
        raise Invalid("'importance' must be between 0 and 1")
    return float(score)


def parse_metadata(value):
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise Invalid("'metadata' must be an object")
    check_json_value(value, "metadata")
    size = len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())
    if size > settings.MAX_METADATA_BYTES:
        raise Invalid(
            f"'metadata' is {size} bytes of JSON; at most {settings.MAX_METADATA_BYTES} "
            "(MEMSITE_MAX_METADATA_BYTES)"
        )
    return value


def parse_type(value):
    """A memory type, matched case-insensitively; absent or empty is Memory."""
    if value is None or value == "":
        return MemoryType.MEMORY
    memory_type = MEMORY_TYPES.get(value.strip().lower()) if isinstance(value, str) else None
    if memory_type is None:
        shown = value if isinstance(value, str) and is_clean_text(value) else repr(value)
        raise Invalid(f"Invalid memory type '{str(shown)[:100]}'. Must be one of: {VALID_TYPES}")
    return memory_type


def parse_short_text(value, field, max_length):
    if value is None:
        return ""
    if not isinstance(value, str) or len(value.strip()) > max_length or not is_clean_text(value):
        raise Invalid(f"'{field}' must be a string of at most {max_length} characters")
    return value.strip()


def parse_source_type(value):
    return parse_short_text(value, "source_type", MAX_SOURCE_TYPE_LENGTH).lower() or "user_input"


def parse_source_id(value):
    return parse_short_text(value, "source_id", MAX_SOURCE_ID_LENGTH)


def parse_created_at(value):
    return None if value in (None, "") else parse_timestamp(value)


def parse_valid_from(value):
    return None if value in (None, "") else parse_timestamp(value, "valid_from")


def parse_supersedes(value, batch=False):
    """1–MAX_SUPERSEDES memory ids (in a batch also the index of an earlier item, an integer);
    absent or null is none. Whether each is one of the caller's live memories is the service's."""
    if value is None:
        return []
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_SUPERSEDES:
        raise Invalid(f"'supersedes' must be a list of 1 to {MAX_SUPERSEDES} memory ids")
    found = []
    for entry in value:
        if batch and isinstance(entry, int) and not isinstance(entry, bool):
            if not 0 <= entry < MAX_BATCH:
                raise Invalid(f"'supersedes' index {entry} is not an item of this batch")
            found.append(entry)
            continue
        shown = entry if isinstance(entry, str) and is_clean_text(entry) else repr(entry)
        found.append(parse_uuid(entry, f"'supersedes' must hold memory ids: '{str(shown)[:60]}' is not one"))
    return list(dict.fromkeys(found))


SUPERSEDES = {
    "type": "array",
    "items": {"type": "string", "format": "uuid"},
    "minItems": 1,
    "maxItems": MAX_SUPERSEDES,
    "description": "Your live memories this one replaces: each becomes superseded by it (an "
    "INVALIDATED_BY association from it to this memory) and stays valid until this one's valid_from.",
}


def text(max_length, description=""):
    return described({"type": "string", "maxLength": max_length}, description)


# Keys AutoMem's clients send with a memory that memsite works out itself: confidence (from
# provenance and corroboration), the embedding (its own model), t_valid/t_invalid (valid_from and
# `supersedes`), updated_at and last_accessed (kept by the service), id (always generated).
AUTOMEM_MEMORY_KEYS = ("confidence", "embedding", "t_valid", "t_invalid", "updated_at", "last_accessed", "id")
AUTOMEM_MEMORY_WHY = "AutoMem clients send it; memsite works it out itself."
MEMORY_FIELDS = (
    Field("content", parse_content, text(MAX_CONTENT_LENGTH, "Stripped; at most 2,000 characters."), True),
    Field("tags", parse_tags, described(TAGS, "A list of tags or one tag; lower-cased.")),
    Field("importance", parse_importance, {"type": "number", "minimum": 0, "maximum": 1, "default": 0.5}),
    Field("metadata", parse_metadata, {"type": "object"}),
    Field(
        "type",
        parse_type,
        {"type": "string", "description": f"One of {VALID_TYPES}; case-insensitive; default Memory."},
        key="memory_type",
    ),
    Field(
        "timestamp",
        parse_created_at,
        {**TIMESTAMP, "description": "ISO 8601; sets created_at."},
        key="created_at",
    ),
    Field("source_type", parse_source_type, {**text(MAX_SOURCE_TYPE_LENGTH), "default": "user_input"}),
    Field("source_id", parse_source_id, text(MAX_SOURCE_ID_LENGTH)),
    Field(
        "is_explicit", lambda value: parse_flag(value, "is_explicit"), {"type": "boolean", "default": False}
    ),
    Field(
        "valid_from",
        parse_valid_from,
        {**TIMESTAMP, "description": "ISO 8601; when the fact began to hold (default: the timestamp)."},
    ),
    Field("supersedes", parse_supersedes, SUPERSEDES),
)
MEMORY = strict(MEMORY_FIELDS, AUTOMEM_MEMORY_KEYS, AUTOMEM_MEMORY_WHY)
# A batch item may also name an earlier item of its batch by its index.
BATCH_ITEM = with_readers(MEMORY, supersedes=lambda value: parse_supersedes(value, batch=True))
BATCH_SUPERSEDES = {
    **SUPERSEDES,
    "items": {"oneOf": [{"type": "string", "format": "uuid"}, {"type": "integer", "minimum": 0}]},
    "description": SUPERSEDES["description"] + " An integer names an earlier item of this batch.",
}


def parse_given_importance(value):
    if value is None:
        raise Invalid("'importance' must be a number")
    return parse_importance(value)


# PATCH reads only the keys present (validate(..., partial=True)); there a null importance or
# timestamp is refused instead of meaning the default.
MEMORY_CHANGES = with_readers(
    MEMORY,
    importance=parse_given_importance,
    timestamp=parse_timestamp,
    valid_from=lambda value: parse_timestamp(value, "valid_from"),
)


def parse_batch(value):
    """The raw items of POST /memory/batch (each item is validated on its own)."""
    if not isinstance(value, list) or not value:
        raise Invalid("'memories' must be a non-empty array")
    if len(value) > MAX_BATCH:
        raise Invalid(f"Batch size limit is {MAX_BATCH} memories per request")
    return value


BATCH = strict(
    (
        Field(
            "memories",
            parse_batch,
            {
                "type": "array",
                "items": {
                    **body_schema(MEMORY),
                    "properties": {**body_schema(MEMORY)["properties"], "supersedes": BATCH_SUPERSEDES},
                },
                "minItems": 1,
                "maxItems": MAX_BATCH,
                "description": f"1 to {MAX_BATCH} memories.",
            },
            required=True,
        ),
    )
)


def parse_required_source_id(value):
    if value is None or (isinstance(value, str) and not value.strip()):
        raise Invalid("'source_id' is required")
    return parse_source_id(value)


CORROBORATION = strict(
    (Field("source_id", parse_required_source_id, text(MAX_SOURCE_ID_LENGTH), required=True),)
)


def read_batch_size(data, values):
    """An absent batch_size is the default; a null one is refused like any other non-integer."""
    size = data.get("batch_size", DEFAULT_REEMBED_BATCH)
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_REEMBED_BATCH:
        raise Invalid(f"'batch_size' must be an integer between 1 and {MAX_REEMBED_BATCH}")
    values["batch_size"] = size


def parse_ids(value):
    if value is None:
        return None
    if not isinstance(value, list) or not value or len(value) > MAX_REEMBED_IDS:
        raise Invalid(f"'ids' must be a list of 1 to {MAX_REEMBED_IDS} memory UUIDs")
    return [parse_uuid(item) for item in value]


def require_ids_or_all(data, values):
    if values["ids"] is None and not values["all"]:
        raise Invalid("Provide 'ids' (a list of memory UUIDs) or 'all': true")


REEMBED = strict(
    (
        Rule(
            read_batch_size,
            {
                "batch_size": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_REEMBED_BATCH,
                    "default": DEFAULT_REEMBED_BATCH,
                    "description": "Memories embedded per model call.",
                }
            },
        ),
        Field(
            "ids",
            parse_ids,
            {
                "type": "array",
                "items": {"type": "string", "format": "uuid"},
                "minItems": 1,
                "maxItems": MAX_REEMBED_IDS,
                "description": "The memories to re-embed (any owner); wins over `all`.",
            },
        ),
        Field("all", lambda value: parse_flag(value, "all"), {"type": "boolean", "default": False}),
        Rule(require_ids_or_all),
    )
)
