"""REST endpoints for memories: validate, call one service or query, render."""

import time

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAdminUser, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from memories import queries, recall, services
from memories.api import serializers as s
from memories.api import specs
from memories.api.recall_spec import BY_TAG, LIST, RECALL, recall_options
from memories.models import Memory
from memsite.api.jobs import JobAcceptedSerializer, accepted
from memsite.api.pagination import Pagination
from memsite.api.specs import parameters, request_body, validate
from memsite.errors import DomainError, Invalid
from memsite.validation import body_as_query, json_body

ID_PARAMETER = OpenApiParameter("memory_id", str, OpenApiParameter.PATH, description="The memory's UUID.")


def elapsed_ms(started):
    return round((time.perf_counter() - started) * 1000, 2)


def memory_body(memory, **extra):
    return {"status": "success", "memory_id": memory.pk, **extra, "memory": s.memory_data(memory)}


def store_one(user, data):
    """The answer to storing one memory given as a decoded JSON object."""
    started = time.perf_counter()
    item = validate(specs.MEMORY, data)
    memory, duplicate = services.store_memory(user, item)
    return {
        "status": "success",
        "memory_id": memory.pk,
        "duplicate": duplicate,
        "stored_at": memory.created_at,
        "type": memory.memory_type,
        "importance": memory.importance,
        "tags": memory.tags,
        "confidence": memory.confidence,
        "quality_score": memory.quality_score,
        "memory": s.memory_data(memory),
        "query_time_ms": elapsed_ms(started),
    }


NOT_AN_EARLIER_ITEM = "'supersedes' index {index} is not an earlier stored item of this batch"


def _batch_items(user, raw_items):
    """The valid items of a batch with their request indexes, and the failures. An item whose
    `supersedes` names a memory in vain, or an earlier item that failed, fails too."""
    items, indexes, failed = [], [], []
    for index, raw in enumerate(raw_items):
        try:
            item = validate(specs.BATCH_ITEM, raw)
            item["supersedes"] = [
                entry if not isinstance(entry, int) else _position(entry, index, indexes)
                for entry in item["supersedes"]
            ]
        except DomainError as error:
            reason = "Memory must be an object" if not isinstance(raw, dict) else error.message
            failed.append({"index": index, "reason": reason})
            continue
        items.append(item)
        indexes.append(index)
    refused = services.check_supersedes(user, items)
    for position, item in enumerate(items):  # naming a refused item is refused too
        named = [entry for entry in item["supersedes"] if isinstance(entry, int) and entry in refused]
        if named and position not in refused:
            refused[position] = NOT_AN_EARLIER_ITEM.format(index=indexes[named[0]])
    failed += [{"index": indexes[position], "reason": reason} for position, reason in refused.items()]
    kept = [position for position in range(len(items)) if position not in refused]
    moved = {old: new for new, old in enumerate(kept)}
    items = [items[position] for position in kept]
    for item in items:
        named = item["supersedes"]
        item["supersedes"] = [moved[entry] if isinstance(entry, int) else entry for entry in named]
    indexes = [indexes[position] for position in kept]
    failed.sort(key=lambda entry: entry["index"])
    return items, indexes, failed


def _position(entry, index, indexes):
    """Where the earlier item of request index `entry` stands among the valid items."""
    if entry >= index or entry not in indexes:
        raise Invalid(NOT_AN_EARLIER_ITEM.format(index=entry))
    return indexes.index(entry)


def store_batch(user, raw_items):
    """The answer to storing a batch: valid items are stored, invalid ones listed with their reason."""
    started = time.perf_counter()
    items, indexes, failed = _batch_items(user, raw_items)
    stored = services.store_memories(user, items) if items else []
    succeeded = [
        {"index": index, "memory_id": memory.pk, "duplicate": duplicate}
        for index, (memory, duplicate) in zip(indexes, stored, strict=True)
    ]
    return {
        "status": "partial_success" if failed else "success",
        "stored_count": sum(not item["duplicate"] for item in succeeded),
        "duplicate_count": sum(item["duplicate"] for item in succeeded),
        "failed_count": len(failed),
        "succeeded": succeeded,
        "failed": failed,
        "query_time_ms": elapsed_ms(started),
    }


def by_tag_body(user, params):
    """The answer to a search by tags given its query parameters (a QueryDict)."""
    started = time.perf_counter()
    tags = validate(BY_TAG, params)["tags"]
    paginator = Pagination()
    memories = paginator.page(queries.memories_by_tag(user, tags), params)
    return {
        "status": "success",
        "tags": tags,
        "count": len(memories),
        "total": paginator.count,
        "limit": paginator.limit,
        "offset": paginator.offset,
        "memories": [s.memory_data(memory) for memory in memories],
        "query_time_ms": elapsed_ms(started),
    }


def list_body(user, params):
    """The answer to a list of one's memories given its query parameters (a QueryDict)."""
    started = time.perf_counter()
    filters = validate(LIST, params)
    paginator = Pagination()
    memories = paginator.page(queries.list_memories(user, filters), params)
    return {
        "status": "success",
        "count": len(memories),
        "total": paginator.count,
        "limit": paginator.limit,
        "offset": paginator.offset,
        "memories": [s.memory_data(memory) for memory in memories],
        "query_time_ms": elapsed_ms(started),
    }


def recall_body(user, params):
    """The answer to a recall given its query parameters (a QueryDict)."""
    options = recall_options(params)
    found = recall.recall(user, options)
    results = [s.recall_result_data(result) for result in found["results"]]
    return {
        "status": "success",
        "query": options.query,
        "results": results,
        "count": len(results),
        "query_time_ms": found["query_time_ms"],
        "expansion": found["expansion"],
    }


class MemoryCreateView(APIView):
    @extend_schema(
        summary="List your memories",
        description="A page of your memories, filtered by tags (any of them), type, archived state and "
        "a created_at range, newest first, oldest first or most important first.",
        parameters=parameters(LIST),
        responses=s.ListResponseSerializer,
    )
    def get(self, request):
        return Response(list_body(request.user, request.query_params))

    @extend_schema(
        summary="Store a memory",
        description="Embeds and evaluates the memory before answering. Content equal to one of your "
        "live memories answers 200 with the existing id and `duplicate: true`.",
        request=request_body(specs.MEMORY),
        responses={201: s.StoreResponseSerializer, 200: s.StoreResponseSerializer},
    )
    def post(self, request):
        body = store_one(request.user, json_body(request))
        return Response(body, status=status.HTTP_200_OK if body["duplicate"] else status.HTTP_201_CREATED)


class MemoryBatchView(APIView):
    @extend_schema(
        summary="Store up to 500 memories",
        description="Each item is validated on its own: valid items are stored together in one "
        "transaction (embedded in one batch), invalid ones are listed in `failed` with their index "
        "and reason. 201 when every item succeeded, 207 otherwise; more than 500 items is a 400.",
        request=request_body(specs.BATCH),
        responses={201: s.BatchResponseSerializer, 207: s.BatchResponseSerializer},
    )
    def post(self, request):
        body = store_batch(request.user, validate(specs.BATCH, json_body(request))["memories"])
        code = status.HTTP_207_MULTI_STATUS if body["failed"] else status.HTTP_201_CREATED
        return Response(body, status=code)


class MemoryDetailView(APIView):
    error_statuses = {"PATCH": (409,)}

    @extend_schema(summary="Get a memory", parameters=[ID_PARAMETER], responses=s.MemoryResponseSerializer)
    def get(self, request, memory_id):
        memory = queries.get_memory_for_user(request.user, memory_id)
        return Response(memory_body(memory))

    @extend_schema(
        summary="Change a memory",
        description="Only the keys present change. New content is re-embedded and re-evaluated; "
        "`importance` must be within 0–1.",
        parameters=[ID_PARAMETER],
        request=request_body(specs.MEMORY_CHANGES, partial=True),
        responses=s.MemoryResponseSerializer,
    )
    def patch(self, request, memory_id):
        memory = queries.get_memory_for_user(request.user, memory_id)
        changes = validate(specs.MEMORY_CHANGES, json_body(request), partial=True)
        return Response(memory_body(services.update_memory(memory, changes)))

    @extend_schema(
        summary="Delete a memory",
        description="Removes the memory, its associations and its graph vertex.",
        parameters=[ID_PARAMETER],
        responses={200: s.DeleteResponseSerializer},
    )
    def delete(self, request, memory_id):
        memory = queries.get_memory_for_user(request.user, memory_id)
        services.delete_memory(memory)
        return Response({"status": "success", "memory_id": memory.pk})


class CorroborateView(APIView):
    @extend_schema(
        summary="Add a corroborating source",
        description="A source not seen before raises confidence by 0.05 (0.20 at most); a repeated "
        "source changes nothing.",
        parameters=[ID_PARAMETER],
        request=request_body(specs.CORROBORATION),
        responses=s.CorroborateResponseSerializer,
    )
    def post(self, request, memory_id):
        memory = queries.get_memory_for_user(request.user, memory_id)
        source_id = validate(specs.CORROBORATION, json_body(request))["source_id"]
        memory, added = services.corroborate_memory(memory, source_id)
        return Response(
            memory_body(
                memory,
                added=added,
                confidence=memory.confidence,
                corroborating_sources=memory.corroborating_sources,
            )
        )


class ArchiveView(APIView):
    @extend_schema(
        summary="Archive a memory",
        description="Archived memories leave recall and listings until restored.",
        parameters=[ID_PARAMETER],
        request=None,
        responses=s.ArchiveResponseSerializer,
    )
    def post(self, request, memory_id):
        memory = queries.get_memory_for_user(request.user, memory_id)
        memory, changed = services.archive_memory(memory)
        return Response(memory_body(memory, archived=True, changed=changed))


class RestoreView(APIView):
    error_statuses = {"POST": (409,)}

    @extend_schema(
        summary="Restore an archived memory",
        parameters=[ID_PARAMETER],
        request=None,
        responses=s.ArchiveResponseSerializer,
    )
    def post(self, request, memory_id):
        memory = queries.get_memory_for_user(request.user, memory_id)
        memory, changed = services.restore_memory(memory)
        return Response(memory_body(memory, archived=False, changed=changed))


class ByTagView(APIView):
    @extend_schema(
        summary="Memories with any of the tags",
        description="Exact, case-insensitive tag match; live memories, most important first.",
        parameters=[*parameters(BY_TAG), *Pagination.parameters()],
        responses=s.ByTagResponseSerializer,
    )
    def get(self, request):
        return Response(by_tag_body(request.user, request.query_params))


class RecallView(APIView):
    # POST only carries the GET parameters in a body: both may read from a replica.
    reads_only = True

    @extend_schema(
        summary="Hybrid recall",
        description="Vector (HNSW) and full-text candidates, and the memories next to them in the "
        f"conversation, fused into one score: {', '.join(recall.COMPONENTS[:-1])} and "
        f"{recall.COMPONENTS[-1]}, with configurable weights.",
        parameters=parameters(RECALL),
        responses=s.RecallResponseSerializer,
    )
    def get(self, request):
        return self.recall(request, request.query_params)

    @extend_schema(
        summary="Hybrid recall with the parameters in a JSON body",
        description="The same as GET /recall, for queries too long for a URL: the body is an "
        "object with the GET parameters as keys (lists for repeated ones).",
        request=request_body(RECALL),
        responses=s.RecallResponseSerializer,
    )
    def post(self, request):
        return self.recall(request, body_as_query(json_body(request)))

    def recall(self, request, params):
        return Response(recall_body(request.user, params))


class ReembedView(APIView):
    permission_classes = [IsAuthenticated, IsAdminUser]

    @extend_schema(
        summary="Recompute vectors (staff)",
        description="Re-embeds the given memories (any owner) or all of them, in batches. Up to "
        f"{services.REEMBED_INLINE_MAX} ids are done in the request (200 with the summary); `all` "
        "or more ids are queued for a worker: 202 with the job id and where to poll it.",
        request=request_body(specs.REEMBED),
        responses={200: s.ReembedResponseSerializer, 202: JobAcceptedSerializer},
    )
    def post(self, request):
        values = validate(specs.REEMBED, json_body(request))
        ids, batch_size = values["ids"], values["batch_size"]
        if ids is None or len(ids) > services.REEMBED_INLINE_MAX:
            return accepted(services.queue_reembed(ids, batch_size))
        memories = Memory.objects.filter(pk__in=ids)
        return Response({"status": "success", **services.reembed_memories(memories, batch_size)})
