"""Memory tools: store, recall, read, change, delete, archive, restore, search by tag."""

from typing import Annotated

from mcp.server.mcpserver.tools import Tool
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
    annotations,
    arg,
)
from memories import queries, services
from memories.api import validators
from memories.api.views import by_tag_body, memory_body, recall_body, store_batch, store_one
from memories.models import MemoryType
from memsite.errors import Invalid
from memsite.validation import body_as_query

TAGS = {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]}
Content = arg("The memory's text, 1-2,000 characters.", type="string", maxLength=2000)
Tags = arg("Tags (lower-cased); a list or one string.", **TAGS)
Importance = arg("How important the memory is, 0-1 (default 0.5).", type="number", minimum=0, maximum=1)
Kind = arg("Memory type, case-insensitive (default Memory).", type="string", enum=sorted(MemoryType.values))
Metadata = arg("Free-form JSON object kept with the memory.", type="object")
Timestamp = arg("ISO 8601 date-time the memory is from (sets created_at).", type="string", format="date-time")
SourceType = arg("Provenance: user_input, agent, tool_output, bootstrapped, ...", type="string")
SourceId = arg("Provenance: an id of the source (conversation, document).", type="string")
IsExplicit = arg("Whether the user stated it explicitly (raises confidence).", type="boolean")
Query = arg("What to look for, in words; omit to list by recency with the filters.", type="string")


def unit(description):
    return arg(description, type="number", minimum=0, maximum=1)


def integer(description, lo, hi):
    return arg(description, type="integer", minimum=lo, maximum=hi)


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
    body = store_batch(user, validators.parse_batch({"memories": batch}))
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
    items are listed in `failed` with their index and reason and the others are stored.
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
    query: Query = None,
    tags: Tags = None,
    tag_mode: arg("any (default) or all of the tags.", type="string", enum=["any", "all"]) = None,
    tag_match: arg("exact (default) or prefix tag match.", type="string", enum=["exact", "prefix"]) = None,
    exclude_tags: arg("Leave out memories with any of these tags.", **TAGS) = None,
    type: arg("Memory type(s), case-insensitive; a list or one string.", **TAGS) = None,
    start: arg("ISO 8601: created at or after.", type="string", format="date-time") = None,
    end: arg("ISO 8601: created at or before.", type="string", format="date-time") = None,
    limit: integer("How many results (default 5).", 1, 100) = None,
    min_quality: unit("Keep memories whose quality_score is at least this.") = None,
    rank_by_quality: arg("Order by 0.7 x quality + 0.3 x score.", type="boolean") = None,
    include_archived: arg("Include archived memories.", type="boolean") = None,
    expand_relations: arg("Follow associations from the matches (graph expansion).", type="boolean") = None,
    expand_entities: arg("Also start from memories tagged with a word of the query.", type="boolean") = None,
    relation_limit: integer("Links followed per memory (default 5).", 1, 100) = None,
    expansion_limit: integer("Memories reached by expansion (default 25).", 1, 500) = None,
    expand_min_strength: unit("Least strength of a followed link.") = None,
    expand_min_importance: unit("Least importance of a reached memory.") = None,
    max_hops: integer("How far expansion goes (default 1).", 1, 3) = None,
) -> Annotated[CallToolResult, RecallAnswer]:
    """Recall the memories most relevant to a query: hybrid search by meaning and keywords.

    Each result has the memory, its `final_score` with `score_components` and `match_type`, and
    its `relations`. Filter by tags, type or time; with `expand_relations` the search also follows
    associations (use `expand_min_strength` 0.3-0.6 to skip weak links). Call it before answering
    a question that past conversations may have covered.
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
            limit=limit,
            min_quality=min_quality,
            rank_by_quality=rank_by_quality,
            include_archived=include_archived,
            expand_relations=expand_relations,
            expand_entities=expand_entities,
            relation_limit=relation_limit,
            expansion_limit=expansion_limit,
            expand_min_strength=expand_min_strength,
            expand_min_importance=expand_min_importance,
            max_hops=max_hops,
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
    importance: Importance = None,
    type: Kind = None,
    metadata: arg("New metadata, replacing the old object.", type="object") = None,
    timestamp: Timestamp = None,
    source_type: SourceType = None,
    source_id: SourceId = None,
    is_explicit: IsExplicit = None,
) -> Annotated[CallToolResult, MemoryAnswer]:
    """Change a memory: only the fields you give change; new content is re-embedded and re-scored.

    To mark a memory as superseded, prefer associate_memories with INVALIDATED_BY or EVOLVED_INTO
    (and, if useful, metadata such as {"deprecated": true}) over deleting it.
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
    )

    def work(user):
        memory = queries.get_memory_for_user(user, memory_id)
        memory = services.update_memory(memory, validators.parse_memory_changes(changes))
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
    limit: arg("How many, 1-200 (default 20).", type="integer", minimum=1, maximum=200) = None,
    offset: arg("How many to skip (default 0).", type="integer", minimum=0) = None,
) -> Annotated[CallToolResult, ByTagAnswer]:
    """List your live memories carrying any of the tags, most important first."""
    params = body_as_query(given(tags=tags, limit=limit, offset=offset))

    def work(user):
        body = by_tag_body(user, params)
        return f"{body['count']} memories tagged {', '.join(body['tags'])}", body

    return await run(work, reads_only=True)


TOOLS = [
    Tool.from_function(store_memory, annotations=annotations("Store a memory")),
    Tool.from_function(recall_memory, annotations=annotations("Recall memories", read_only=True)),
    Tool.from_function(get_memory, annotations=annotations("Get a memory", read_only=True)),
    Tool.from_function(update_memory, annotations=annotations("Update a memory", destructive=True)),
    Tool.from_function(delete_memory, annotations=annotations("Delete a memory", destructive=True)),
    Tool.from_function(archive_memory, annotations=annotations("Archive a memory")),
    Tool.from_function(restore_memory, annotations=annotations("Restore a memory")),
    Tool.from_function(search_by_tag, annotations=annotations("Search by tag", read_only=True)),
]
