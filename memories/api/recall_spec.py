"""The query strings of GET /recall (also POST /recall's body, read as one) and GET /memory/by-tag,
in AutoMem's order of checks, as specs (memsite.api.specs)."""

from django.utils import timezone

from memories import time_query
from memories.api.specs import MAX_CONTENT_LENGTH, MAX_TAG_LENGTH, MAX_TAGS, TAGS, parse_type
from memories.models import MemoryType
from memories.recall import RecallOptions
from memsite.api.pagination import PAGE
from memsite.api.specs import TIMESTAMP, Field, Rule, choice, described, flag, integer, strict, unit, validate
from memsite.errors import Invalid
from memsite.validation import is_clean_text, parse_timestamp, parse_word_flag, parse_words


def parse_query(raw):
    query = (raw or "").strip()
    if len(query) > MAX_CONTENT_LENGTH:
        raise Invalid(f"'query' exceeds maximum length of {MAX_CONTENT_LENGTH} characters")
    if not is_clean_text(query):
        raise Invalid("'query' contains characters that cannot be searched")
    return query


def time_field(name, description):
    def read(raw):
        if raw is None or raw == "":
            return None
        return parse_timestamp(raw, name, f"'{name}' must be an ISO 8601 timestamp")

    return Field(name, read, {**TIMESTAMP, "description": description})


def tags_field(name, required=False):
    def read(raws):
        tags = parse_words(raws)
        if len(tags) > MAX_TAGS:
            raise Invalid(f"'{name}' must contain at most {MAX_TAGS} tags ({len(tags)} provided)")
        if any(len(tag) > MAX_TAG_LENGTH or not is_clean_text(tag) for tag in tags):
            raise Invalid(f"'{name}' must be tags of at most {MAX_TAG_LENGTH} characters")
        if required and not tags:
            raise Invalid(f"'{name}' query parameter is required")
        return tags

    return Field(name, read, described(TAGS, "Comma list or repeated."), required=required, many=True)


def start_not_after_end(params, values):
    if values["start"] and values["end"] and values["start"] > values["end"]:
        raise Invalid("'start' must not be after 'end'")


def resolve_time_query(params, values):
    phrase = (params.get("time_query") or "").strip()
    if not phrase:
        return
    if values["start"] or values["end"]:
        raise Invalid("Use either 'time_query' or 'start'/'end', not both")
    try:
        values["start"], values["end"] = time_query.resolve(phrase, timezone.now())
    except (ValueError, OverflowError):
        raise Invalid(f"'time_query' must be one of: {time_query.PHRASES}") from None


TIME_QUERY = {
    "type": "string",
    "description": "A time phrase resolved to start/end on the memory's time: today, yesterday, "
    "last 24 hours, last 48 hours, last N days, this week, last week, this month, last month, "
    "this year, last year, 'in May 2023', 'since March 2024'. Not with start/end.",
}
# Hints AutoMem's clients send with a recall, for AutoMem's coding-context boosts, which memsite's
# ranking does not have: accepted and ignored.
AUTOMEM_RECALL_HINTS = (
    "context",
    "active_path",
    "file_path",
    "focus_path",
    "language",
    "lang",
    "context_tags",
    "context_types",
    "priority_ids",
)
TYPES = Field(
    "type",
    lambda raws: [parse_type(value) for value in parse_words(raws)],
    {
        "type": "array",
        "items": {"type": "string", "enum": sorted(MemoryType.values)},
        "description": "Memory types, case-insensitive.",
    },
    key="types",
    many=True,
)
RECALL_FIELDS = (
    Field(
        "query",
        parse_query,
        {
            "type": "string",
            "maxLength": MAX_CONTENT_LENGTH,
            "description": "Free text; omit to list by recency with the filters.",
        },
    ),
    TYPES,
    time_field("start", "Created at or after; not after `end`."),
    time_field("end", "Created at or before."),
    Rule(start_not_after_end),
    Rule(resolve_time_query, {"time_query": TIME_QUERY}),
    tags_field("tags"),
    choice("tag_mode", ["any", "all"]),
    choice("tag_match", ["exact", "prefix"]),
    tags_field("exclude_tags"),
    integer(
        "limit",
        5,
        1,
        100,
        "Direct matches answered; with expansion the answer also holds up to `expansion_limit` "
        "memories the expansion reached, ranked with them in one ranking.",
    ),
    unit("min_quality", None, "Keep quality_score ≥ this."),
    flag("rank_by_quality", "Order by 0.7·quality + 0.3·final."),
    flag("include_archived"),
    flag("expand_relations"),
    flag("expand_entities"),
    integer("relation_limit", 5, 1, 100),
    integer(
        "expansion_limit",
        25,
        1,
        500,
        "With expand_relations or expand_entities: at most this many expanded memories in the answer, "
        "beside the `limit` direct matches (so at most limit + expansion_limit results).",
    ),
    unit("expand_min_strength", 0.0),
    unit("expand_min_importance", 0.0),
    integer("max_hops", 1, 1, 3),
    flag(
        "expand_respect_tags", "Apply the `tags` filter to expanded memories too (default false: unscoped)."
    ),
    time_field(
        "valid_at",
        "Only what was true then: memories whose validity (valid_from until valid_until) contains it.",
    ),
    Field(
        "include_superseded",
        lambda raw: parse_word_flag(raw, "include_superseded", default=True),
        {
            "type": "boolean",
            "default": True,
            "description": "false drops memories another one has replaced (by valid_at, or now); by "
            "default they stay and rank below the memory that replaced them.",
        },
    ),
    choice(
        "sort",
        ["score", "time_desc", "time_asc"],
        "score (default), or the results listed by time; with a query the best-scored results are "
        "chosen first.",
    ),
)
RECALL = strict(RECALL_FIELDS, AUTOMEM_RECALL_HINTS, "a hint for AutoMem's coding-context ranking.")
BY_TAG = strict((tags_field("tags", required=True), *PAGE))
LIST = strict(
    (
        tags_field("tags"),
        TYPES,
        time_field("start", "Created at or after; not after `end`."),
        time_field("end", "Created at or before."),
        Rule(start_not_after_end),
        choice("archived", ["live", "archived", "all"], "Live memories (default), archived ones, or all."),
        choice(
            "order",
            ["time_desc", "time_asc", "importance"],
            "Newest first (default), oldest first, or most important first.",
        ),
        *PAGE,
    )
)


def recall_options(params):
    """RecallOptions from the query string of GET /recall (a QueryDict)."""
    return RecallOptions(**validate(RECALL, params))
