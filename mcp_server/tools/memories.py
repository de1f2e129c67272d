"""Memory tools: store, recall, read, change, delete, archive, restore, search by tag."""

from typing import Annotated

from mcp.types import CallToolResult

from mcp_server.calls import run
from mcp_server.shapes import (
    ArchiveAnswer,
    ByTagAnswer,
    DeleteAnswer,
    MemoryAnswer,
    MemoryId,
    RecallAnswer,
    StoreAnswer,
    StrictTool,
    annotations,
    arg,
    spec_arg,
)
from memories import queries, services
from memories.api import specs
from memories.api.recall_spec import RECALL
from memories.api.specs import MEMORY, MEMORY_CHANGES
from memories.api.views import by_tag_body, memory_body, recall_body, store_batch, store_one
from memories.models import MemoryType
from memsite.api.pagination import PAGE
from memsite.api.specs import validate
from memsite.errors import Invalid
from memsite.validation import body_as_query

TAGS = {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]}
Content = spec_arg(MEMORY, "content", "The memory's text, 1-2,000 characters.")
Tags = arg("Tags (lower-cased); a list or one string.", **TAGS)
Importance = spec_arg(MEMORY, "importance", "How important the memory is, 0-1 (default 0.5).")
Kind = arg("Memory type, case-insensitive (default Memory).", type="string", enum=sorted(MemoryType.values))
Metadata = arg("Free-form JSON object kept with the memory.", type="object")
Timestamp = spec_arg(MEMORY, "timestamp", "ISO 8601 date-time the memory is from (sets created_at).")
SOURCE_TYPE = "Provenance: user_input, agent, tool_output, bootstrapped, ..."
SourceType = spec_arg(MEMORY, "source_type", SOURCE_TYPE)
SourceId = spec_arg(MEMORY, "source_id", "Provenance: an id of the source (conversation, document).")
IS_EXPLICIT = "Whether the user stated it explicitly (raises confidence)."
IsExplicit = spec_arg(MEMORY, "is_explicit", IS_EXPLICIT)
ValidFrom = spec_arg(MEMORY, "valid_from", "ISO 8601 date-time the fact began to hold (default: timestamp).")
Supersedes = spec_arg(
    MEMORY, "supersedes", "Ids of your memories this one replaces (1-20): they become superseded by it."
)


def recall_arg(name, description):
    return spec_arg(RECALL, name, description)


def given(**values):
    """The arguments the client gave (MCP has no way to send "absent" other than leaving it out)."""
    return {name: value for name, value in values.items() if value is not None}


def _store(user, fields, batch):
    if batch is None:
        body = store_one(user, fields)
        verb = "Already stored as" if body["duplicate"] else "Stored"
        return f"{verb} memory {body['memory_id']} (quality {body['quality_score']:.2f})", body
    if fields:
        raise Invalid("Give either 'memories' (a batch) or the fields of one memory, not both")
    body = store_batch(user, validate(specs.BATCH, {"memories": batch})["memories"])
    text = (
        f"Stored {body['stored_count']} memories, {body['duplicate_count']} already known, "
        f"{body['failed_count']} failed"
    )
    return text, body


async def store_memory(
    content: Content = None,
    tags: Tags = None,
    importance: Importance = None,
    type: Kind = None,
    metadata: Metadata = None,
    timestamp: Timestamp = None,
    source_type: SourceType = None,
    source_id: SourceId = None,
    is_explicit: IsExplicit = None,
    valid_from: ValidFrom = None,
    supersedes: Supersedes = None,
    memories: arg(
        "Batch mode: 1-500 memories, each an object with the fields above. Do not combine with them.",
        type="array",
        minItems=1,
        maxItems=500,
        items={"type": "object", "properties": {"content": {"type": "string"}}, "required": ["content"]},
    ) = None,
) -> Annotated[CallToolResult, StoreAnswer]:
    """Store a memory (a fact, decision, preference, pattern...) so it can be recalled later.

    Give `content` (and optionally tags, type, importance, metadata, provenance) for one memory,
    or `memories` for a batch of up to 500. Content equal to a memory you already have is not
    stored twice: the answer names the existing memory with `duplicate: true`. In a batch, invalid
    items are listed in `failed` with their index and reason and the others are stored. When the
    memory replaces facts you stored before ("moved to Antwerp" replacing "lives in Ghent"), name
    them in `supersedes` (in a batch also the index of an earlier item).
    """
    fields = given(
        content=content,
        tags=tags,
        importance=importance,
        type=type,
        metadata=metadata,
        timestamp=timestamp,
        source_type=source_type,
        source_id=source_id,
        is_explicit=is_explicit,
        valid_from=valid_from,
        supersedes=supersedes,
    )
    return await run(lambda user: _store(user, fields, memories))


def _recall(user, params):
    body = recall_body(user, params)
    lines = [f"{body['count']} memories in {body['query_time_ms']:.0f} ms"]
    lines += [
        f"- {result['id']} ({result['final_score']:.2f}) {result['memory']['content'][:80]}"
        for result in body["results"]
    ]
    return "\n".join(lines), body


async def recall_memory(
    query: recall_arg("query", "What to look for; omit to list by recency with the filters.") = None,
    tags: Tags = None,
    tag_mode: recall_arg("tag_mode", "any (default) or all of the tags.") = None,
    tag_match: recall_arg("tag_match", "exact (default) or prefix tag match.") = None,
    exclude_tags: arg("Leave out memories with any of these tags.", **TAGS) = None,
    type: arg("Memory type(s), case-insensitive; a list or one string.", **TAGS) = None,
    start: recall_arg("start", "ISO 8601: created at or after.") = None,
    end: recall_arg("end", "ISO 8601: created at or before.") = None,
    time_query: recall_arg("time_query", "A time phrase instead of start/end: today, last week, ...") = None,
    limit: recall_arg("limit", "How many results (default 5).") = None,
    min_quality: recall_arg("min_quality", "Keep memories whose quality_score is at least this.") = None,
    rank_by_quality: recall_arg("rank_by_quality", "Order by 0.7 x quality + 0.3 x score.") = None,
    sort: recall_arg("sort", "score (default), time_desc or time_asc.") = None,
    include_archived: recall_arg("include_archived", "Include archived memories.") = None,
    expand_relations: recall_arg("expand_relations", "Follow associations from the matches.") = None,
    expand_entities: recall_arg("expand_entities", "Also start from entities named in the query.") = None,
    expand_respect_tags: recall_arg("expand_respect_tags", "Filter expanded memories by tags too.") = None,
    relation_limit: recall_arg("relation_limit", "Links followed per memory (default 5).") = None,
    expansion_limit: recall_arg("expansion_limit", "Memories reached by expansion (default 25).") = None,
    expand_min_strength: recall_arg("expand_min_strength", "Least strength of a followed link.") = None,
    expand_min_importance: recall_arg("expand_min_importance", "Least importance reached.") = None,
    max_hops: recall_arg("max_hops", "How far expansion goes (default 1).") = None,
    valid_at: recall_arg("valid_at", "ISO 8601: only what was true then.") = None,
    include_superseded: recall_arg(
        "include_superseded", "false leaves out memories another one replaced (default true)."
    ) = None,
) -> Annotated[CallToolResult, RecallAnswer]:
    """Recall the memories most relevant to a query: hybrid search by meaning and keywords.

    Each result has the memory, its `final_score` with `score_components` and `match_type`, and
    its `relations`. Filter by tags, type or time; with `expand_relations` the search also follows
    associations (use `expand_min_strength` 0.3-0.6 to skip weak links). A memory another one
    replaced ranks below it and names it in `superseded_by`; `valid_at` answers with what was true
    at a moment. Call it before answering a question that past conversations may have covered.
    """
    params = body_as_query(
        given(
            query=query,
            tags=tags,
            tag_mode=tag_mode,
            tag_match=tag_match,
            exclude_tags=exclude_tags,
            type=type,
            start=start,
            end=end,
            time_query=time_query,
            limit=limit,
            min_quality=min_quality,
            rank_by_quality=rank_by_quality,
            sort=sort,
            include_archived=include_archived,
            expand_relations=expand_relations,
            expand_entities=expand_entities,
            expand_respect_tags=expand_respect_tags,
            relation_limit=relation_limit,
            expansion_limit=expansion_limit,
            expand_min_strength=expand_min_strength,
            expand_min_importance=expand_min_importance,
            max_hops=max_hops,
            valid_at=valid_at,
            include_superseded=include_superseded,
        )
    )
    return await run(lambda user: _recall(user, params), reads_only=True)


def _memory_text(verb, memory):
    return f"{verb} memory {memory.pk}: {memory.content[:80]}"


async def get_memory(memory_id: MemoryId) -> Annotated[CallToolResult, MemoryAnswer]:
    """Read one of your memories with its tags, provenance and quality."""

    def work(user):
        memory = queries.get_memory_for_user(user, memory_id)
        return _memory_text("Found", memory), memory_body(memory)

    return await run(work, reads_only=True)


async def update_memory(
    memory_id: MemoryId,
    content: Content = None,
    tags: arg("New tags, replacing the old ones; a list or one string.", **TAGS) = None,
    importance: spec_arg(
        MEMORY_CHANGES, "importance", "How important the memory is, 0-1.", partial=True
    ) = None,
    type: Kind = None,
    metadata: arg("New metadata, replacing the old object.", type="object") = None,
    timestamp: Timestamp = None,
    source_type: spec_arg(MEMORY_CHANGES, "source_type", SOURCE_TYPE, partial=True) = None,
    source_id: SourceId = None,
    is_explicit: spec_arg(MEMORY_CHANGES, "is_explicit", IS_EXPLICIT, partial=True) = None,
    valid_from: spec_arg(
        MEMORY_CHANGES, "valid_from", "ISO 8601: when the fact began to hold.", partial=True
    ) = None,
    supersedes: Supersedes = None,
) -> Annotated[CallToolResult, MemoryAnswer]:
    """Change a memory: only the fields you give change; new content is re-embedded and re-scored.

    To mark older memories as replaced by this one, give their ids in `supersedes` (or link them
    with associate_memories and INVALIDATED_BY) instead of deleting them: recall then ranks them
    below this one and `valid_at` still finds them for the time they held.
    """
    changes = given(
        content=content,
        tags=tags,
        importance=importance,
        type=type,
        metadata=metadata,
        timestamp=timestamp,
        source_type=source_type,
        source_id=source_id,
        is_explicit=is_explicit,
        valid_from=valid_from,
        supersedes=supersedes,
    )

    def work(user):
        memory = queries.get_memory_for_user(user, memory_id)
        memory = services.update_memory(memory, validate(specs.MEMORY_CHANGES, changes, partial=True))
        return _memory_text("Updated", memory), memory_body(memory)

    return await run(work)


async def delete_memory(memory_id: MemoryId) -> Annotated[CallToolResult, DeleteAnswer]:
    """Delete a memory for good, with its associations. Prefer archive_memory, which can be undone."""

    def work(user):
        memory = queries.get_memory_for_user(user, memory_id)
        services.delete_memory(memory)
        return f"Deleted memory {memory.pk}", {"status": "success", "memory_id": memory.pk}

    return await run(work)


def _archive(memory_id, change, archived):
    def work(user):
        memory, changed = change(queries.get_memory_for_user(user, memory_id))
        verb = ("Archived" if archived else "Restored") if changed else "Unchanged"
        return _memory_text(verb, memory), memory_body(memory, archived=archived, changed=changed)

    return work


async def archive_memory(memory_id: MemoryId) -> Annotated[CallToolResult, ArchiveAnswer]:
    """Archive a memory: it leaves recall and listings until restore_memory brings it back."""
    return await run(_archive(memory_id, services.archive_memory, archived=True))


async def restore_memory(memory_id: MemoryId) -> Annotated[CallToolResult, ArchiveAnswer]:
    """Restore an archived memory to recall and listings."""
    return await run(_archive(memory_id, services.restore_memory, archived=False))


async def search_by_tag(
    tags: arg("Tags to look for (any of them, exact); a list or one string.", **TAGS),
    limit: spec_arg(PAGE, "limit", "How many, 1-500 (default 50).") = None,
    offset: spec_arg(PAGE, "offset", "How many to skip (default 0).") = None,
) -> Annotated[CallToolResult, ByTagAnswer]:
    """List your live memories carrying any of the tags, most important first."""
    params = body_as_query(given(tags=tags, limit=limit, offset=offset))

    def work(user):
        body = by_tag_body(user, params)
        return f"{body['count']} memories tagged {', '.join(body['tags'])}", body

    return await run(work, reads_only=True)


TOOLS = [
    StrictTool.from_function(store_memory, annotations=annotations("Store a memory")),
    StrictTool.from_function(recall_memory, annotations=annotations("Recall memories", read_only=True)),
    StrictTool.from_function(get_memory, annotations=annotations("Get a memory", read_only=True)),
    StrictTool.from_function(update_memory, annotations=annotations("Update a memory", destructive=True)),
    StrictTool.from_function(delete_memory, annotations=annotations("Delete a memory", destructive=True)),
    StrictTool.from_function(archive_memory, annotations=annotations("Archive a memory")),
    StrictTool.from_function(restore_memory, annotations=annotations("Restore a memory")),
    StrictTool.from_function(search_by_tag, annotations=annotations("Search by tag", read_only=True)),
]
