"""Request validation with AutoMem's messages, checked in AutoMem's order.

Each function takes the decoded JSON value and returns clean Python values, or raises Invalid
(400) with the exact message. Anything a client can send ends here as a 4xx, never a 500.
"""

import math

from django.utils import timezone

from memories import time_query
from memories.models import MemoryType
from memories.recall import RecallOptions
from memsite.errors import Invalid
from memsite.validation import (
    check_json_value,
    is_clean_text,
    parse_flag,
    parse_timestamp,
    parse_uuid,
    query_bool,
    query_choice,
    query_float,
    query_int,
    query_list,
)

MAX_CONTENT_LENGTH = 2000
MAX_TAGS = 100
MAX_TAG_LENGTH = 100
MAX_SOURCE_TYPE_LENGTH = 40
MAX_SOURCE_ID_LENGTH = 200
MAX_BATCH = 500
MEMORY_TYPES = {choice.lower(): choice for choice in MemoryType.values}
VALID_TYPES = ", ".join(sorted(MemoryType.values))


def bad_request(message):
    return Invalid(message)


def require_object(data):
    if not isinstance(data, dict):
        raise bad_request("JSON body is required")
    return data


def parse_content(value):
    if value is None or (isinstance(value, str) and not value.strip()):
        raise bad_request("'content' is required")
    if not isinstance(value, str):
        raise bad_request("'content' must be a string")
    content = value.strip()
    if len(content) > MAX_CONTENT_LENGTH:
        raise bad_request(
            f"Content exceeds maximum length of {MAX_CONTENT_LENGTH} characters ({len(content)} provided)"
        )
    if not is_clean_text(content):
        raise bad_request("'content' contains characters that cannot be stored")
    return content


def parse_tags(value):
    """A list of strings or one string: stripped, lower-cased, blanks dropped, duplicates merged."""
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(tag, str) for tag in value):
        raise bad_request("'tags' must be a list of strings or a single string")
    if len(value) > MAX_TAGS:
        raise bad_request(f"'tags' must contain at most {MAX_TAGS} tags ({len(value)} provided)")
    tags = []
    for raw in value:
        tag = raw.strip().lower()
        if len(tag) > MAX_TAG_LENGTH:
            raise bad_request(f"Each tag must be at most {MAX_TAG_LENGTH} characters")
        if not is_clean_text(tag):
            raise bad_request("'tags' contains characters that cannot be stored")
        if tag and tag not in tags:
            tags.append(tag)
    return tags


def parse_importance(value, default=0.5):
    if value is None:
        return default
    if isinstance(value, bool):
        raise bad_request("'importance' must be a number")
    try:
        score = float(value)
    except (TypeError, ValueError, OverflowError):
        raise bad_request("'importance' must be a number") from None
    if not math.isfinite(score) or score < 0 or score > 1:
        raise bad_request("'importance' must be between 0 and 1")
    return score


def parse_metadata(value):
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise bad_request("'metadata' must be an object")
    return check_json_value(value, "metadata")


def parse_type(value, default=MemoryType.MEMORY):
    """A memory type, matched case-insensitively."""
    if value is None or value == "":
        return default
    memory_type = MEMORY_TYPES.get(value.strip().lower()) if isinstance(value, str) else None
    if memory_type is None:
        shown = value if isinstance(value, str) and is_clean_text(value) else repr(value)
        raise bad_request(f"Invalid memory type '{str(shown)[:100]}'. Must be one of: {VALID_TYPES}")
    return memory_type


def parse_short_text(value, field, max_length, default=""):
    if value is None:
        return default
    if not isinstance(value, str) or len(value.strip()) > max_length or not is_clean_text(value):
        raise bad_request(f"'{field}' must be a string of at most {max_length} characters")
    return value.strip()


def parse_memory(data):
    """The fields of one memory to store, in AutoMem's validation order."""
    require_object(data)
    content = parse_content(data.get("content"))
    tags = parse_tags(data.get("tags"))
    importance = parse_importance(data.get("importance"))
    metadata = parse_metadata(data.get("metadata"))
    memory_type = parse_type(data.get("type"))
    timestamp = data.get("timestamp")
    created_at = None if timestamp in (None, "") else parse_timestamp(timestamp)
    return {
        "content": content,
        "tags": tags,
        "importance": importance,
        "metadata": metadata,
        "memory_type": memory_type,
        "created_at": created_at,
        "source_type": parse_short_text(
            data.get("source_type"), "source_type", MAX_SOURCE_TYPE_LENGTH, "user_input"
        ).lower()
        or "user_input",
        "source_id": parse_short_text(data.get("source_id"), "source_id", MAX_SOURCE_ID_LENGTH),
        "is_explicit": parse_flag(data.get("is_explicit"), "is_explicit"),
    }


def parse_memory_changes(data):
    """The fields a PATCH changes; absent keys are left alone."""
    require_object(data)
    changes = {}
    if "content" in data:
        changes["content"] = parse_content(data["content"])
    if "tags" in data:
        changes["tags"] = parse_tags(data["tags"])
    if "importance" in data:
        if data["importance"] is None:
            raise bad_request("'importance' must be a number")
        changes["importance"] = parse_importance(data["importance"])
    if "metadata" in data:
        changes["metadata"] = parse_metadata(data["metadata"])
    if "type" in data:
        changes["memory_type"] = parse_type(data["type"], default=None) or MemoryType.MEMORY
    if "timestamp" in data:
        changes["created_at"] = parse_timestamp(data["timestamp"])
    if "source_type" in data:
        changes["source_type"] = (
            parse_short_text(data["source_type"], "source_type", MAX_SOURCE_TYPE_LENGTH).lower()
            or "user_input"
        )
    if "source_id" in data:
        changes["source_id"] = parse_short_text(data["source_id"], "source_id", MAX_SOURCE_ID_LENGTH)
    if "is_explicit" in data:
        changes["is_explicit"] = parse_flag(data["is_explicit"], "is_explicit")
    return changes


def parse_batch(data):
    """The list of raw items of POST /memory/batch (each item is validated on its own)."""
    require_object(data)
    items = data.get("memories")
    if not isinstance(items, list) or not items:
        raise bad_request("'memories' must be a non-empty array")
    if len(items) > MAX_BATCH:
        raise bad_request(f"Batch size limit is {MAX_BATCH} memories per request")
    return items


def parse_source_id(data):
    require_object(data)
    value = data.get("source_id")
    if value is None or (isinstance(value, str) and not value.strip()):
        raise bad_request("'source_id' is required")
    return parse_short_text(value, "source_id", MAX_SOURCE_ID_LENGTH)


def query_time(params, name):
    raw = params.get(name)
    if raw is None or raw == "":
        return None
    return parse_timestamp(raw, name, f"'{name}' must be an ISO 8601 timestamp")


def query_tags(params, name):
    tags = query_list(params, name)
    if len(tags) > MAX_TAGS:
        raise bad_request(f"'{name}' must contain at most {MAX_TAGS} tags ({len(tags)} provided)")
    if any(len(tag) > MAX_TAG_LENGTH or not is_clean_text(tag) for tag in tags):
        raise bad_request(f"'{name}' must be tags of at most {MAX_TAG_LENGTH} characters")
    return tags


def parse_recall(params):
    """RecallOptions from the query string of GET /recall."""
    query = (params.get("query") or "").strip()
    if len(query) > MAX_CONTENT_LENGTH:
        raise bad_request(f"'query' exceeds maximum length of {MAX_CONTENT_LENGTH} characters")
    if not is_clean_text(query):
        raise bad_request("'query' contains characters that cannot be searched")
    types = [parse_type(value) for value in query_list(params, "type")]
    start, end = query_time(params, "start"), query_time(params, "end")
    if start and end and start > end:
        raise bad_request("'start' must not be after 'end'")
    phrase = (params.get("time_query") or "").strip()
    if phrase:
        if start or end:
            raise bad_request("Use either 'time_query' or 'start'/'end', not both")
        try:
            start, end = time_query.resolve(phrase, timezone.now())
        except (ValueError, OverflowError):
            raise bad_request(f"'time_query' must be one of: {time_query.PHRASES}") from None
    return RecallOptions(
        query=query,
        tags=query_tags(params, "tags"),
        tag_mode=query_choice(params, "tag_mode", "any", ["any", "all"]),
        tag_match=query_choice(params, "tag_match", "exact", ["exact", "prefix"]),
        exclude_tags=query_tags(params, "exclude_tags"),
        types=types,
        start=start,
        end=end,
        limit=query_int(params, "limit", 5, 1, 100),
        min_quality=query_float(params, "min_quality", None),
        rank_by_quality=query_bool(params, "rank_by_quality"),
        include_archived=query_bool(params, "include_archived"),
        expand_relations=query_bool(params, "expand_relations"),
        expand_entities=query_bool(params, "expand_entities"),
        relation_limit=query_int(params, "relation_limit", 5, 1, 100),
        expansion_limit=query_int(params, "expansion_limit", 25, 1, 500),
        expand_min_strength=query_float(params, "expand_min_strength", 0.0),
        expand_min_importance=query_float(params, "expand_min_importance", 0.0),
        max_hops=query_int(params, "max_hops", 1, 1, 3),
        expand_respect_tags=query_bool(params, "expand_respect_tags"),
        sort=query_choice(params, "sort", "score", ["score", "time_desc", "time_asc"]),
    )


def parse_by_tag(params):
    """The tags of GET /memory/by-tag (it pages with the API's one pagination rule)."""
    tags = query_tags(params, "tags")
    if not tags:
        raise bad_request("'tags' query parameter is required")
    return tags


def parse_reembed(data):
    """(ids or None for all, batch_size) of POST /admin/reembed."""
    require_object(data)
    batch_size = data.get("batch_size", 256)
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or not 1 <= batch_size <= 1024:
        raise bad_request("'batch_size' must be an integer between 1 and 1024")
    ids = data.get("ids")
    if ids is not None:
        if not isinstance(ids, list) or not ids or len(ids) > 10_000:
            raise bad_request("'ids' must be a list of 1 to 10000 memory UUIDs")
        return [parse_uuid(value) for value in ids], batch_size
    if data.get("all") is True:
        return None, batch_size
    raise bad_request("Provide 'ids' (a list of memory UUIDs) or 'all': true")
