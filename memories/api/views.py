"""REST endpoints for memories: validate, call one service or query, render."""

import time

from drf_spectacular.plumbing import build_basic_type
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAdminUser, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from memories import queries, recall, services
from memories.api import serializers as s
from memories.api import validators
from memories.models import Memory, MemoryType
from memsite.api.jobs import JobAcceptedSerializer, accepted
from memsite.api.pagination import Pagination
from memsite.api.schema import TIMESTAMP, UNIT, integer
from memsite.errors import DomainError
from memsite.validation import body_as_query, json_body

ID_PARAMETER = OpenApiParameter("memory_id", str, OpenApiParameter.PATH, description="The memory's UUID.")


def elapsed_ms(started):
    return round((time.perf_counter() - started) * 1000, 2)


def memory_body(memory, **extra):
    return {"status": "success", "memory_id": memory.pk, **extra, "memory": s.MemorySerializer(memory).data}


def store_one(user, data):
    """The answer to storing one memory given as a decoded JSON object."""
    started = time.perf_counter()
    item = validators.parse_memory(data)
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
        "memory": s.MemorySerializer(memory).data,
        "query_time_ms": elapsed_ms(started),
    }


def store_batch(user, raw_items):
    """The answer to storing a batch: valid items are stored, invalid ones listed with their reason."""
    started = time.perf_counter()
    items, indexes, failed = [], [], []
    for index, raw in enumerate(raw_items):
        try:
            items.append(validators.parse_memory(raw))
        except DomainError as error:
            reason = "Memory must be an object" if not isinstance(raw, dict) else error.message
            failed.append({"index": index, "reason": reason})
            continue
        indexes.append(index)
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
    tags = validators.parse_by_tag(params)
    paginator = Pagination()
    memories = paginator.page(queries.memories_by_tag(user, tags), params)
    return {
        "status": "success",
        "tags": tags,
        "count": len(memories),
        "total": paginator.count,
        "limit": paginator.limit,
        "offset": paginator.offset,
        "memories": s.MemorySerializer(memories, many=True).data,
        "query_time_ms": elapsed_ms(started),
    }


def recall_body(user, params):
    """The answer to a recall given its query parameters (a QueryDict)."""
    options = validators.parse_recall(params)
    found = recall.recall(user, options)
    results = s.RecallResultSerializer(found["results"], many=True).data
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
        summary="Store a memory",
        description="Embeds and evaluates the memory before answering. Content equal to one of your "
        "live memories answers 200 with the existing id and `duplicate: true`.",
        request=s.MemoryInputSerializer,
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
        request=s.BatchInputSerializer,
        responses={201: s.BatchResponseSerializer, 207: s.BatchResponseSerializer},
    )
    def post(self, request):
        body = store_batch(request.user, validators.parse_batch(json_body(request)))
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
        description="New content is re-embedded and re-evaluated; `importance` must be within 0–1.",
        parameters=[ID_PARAMETER],
        request=s.MemoryPatchSerializer,
        responses=s.MemoryResponseSerializer,
    )
    def patch(self, request, memory_id):
        memory = queries.get_memory_for_user(request.user, memory_id)
        changes = validators.parse_memory_changes(json_body(request))
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
        request=s.CorroborateInputSerializer,
        responses=s.CorroborateResponseSerializer,
    )
    def post(self, request, memory_id):
        memory = queries.get_memory_for_user(request.user, memory_id)
        source_id = validators.parse_source_id(json_body(request))
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
        parameters=[
            OpenApiParameter("tags", str, description="Comma list or repeated.", required=True),
            *Pagination.parameters(),
        ],
        responses=s.ByTagResponseSerializer,
    )
    def get(self, request):
        return Response(by_tag_body(request.user, request.query_params))


TAGS = {"type": "array", "items": {"type": "string", "maxLength": 100}, "maxItems": 100}
TYPES = {"type": "array", "items": {"type": "string", "enum": sorted(MemoryType.values)}}
RECALL_PARAMETERS = [
    OpenApiParameter(
        "query",
        {"type": "string", "maxLength": 2000},
        description="Free text; omit to list by recency with the filters.",
    ),
    OpenApiParameter("tags", TAGS, explode=False, description="Comma list or repeated."),
    OpenApiParameter("tag_mode", str, enum=["any", "all"]),
    OpenApiParameter("tag_match", str, enum=["exact", "prefix"]),
    OpenApiParameter("exclude_tags", TAGS, explode=False, description="Comma list or repeated."),
    OpenApiParameter("type", TYPES, explode=False, description="Memory types, case-insensitive."),
    OpenApiParameter("start", TIMESTAMP, description="Created at or after; not after `end`."),
    OpenApiParameter("end", TIMESTAMP, description="Created at or before."),
    OpenApiParameter("limit", integer(1, 100, 5)),
    OpenApiParameter("min_quality", UNIT, description="Keep quality_score ≥ this."),
    OpenApiParameter("rank_by_quality", bool, description="Order by 0.7·quality + 0.3·final."),
    OpenApiParameter("include_archived", bool),
    OpenApiParameter("expand_relations", bool),
    OpenApiParameter("expand_entities", bool),
    OpenApiParameter("relation_limit", integer(1, 100, 5)),
    OpenApiParameter("expansion_limit", integer(1, 500, 25)),
    OpenApiParameter("expand_min_strength", UNIT),
    OpenApiParameter("expand_min_importance", UNIT),
    OpenApiParameter("max_hops", integer(1, 3, 1)),
    OpenApiParameter(
        "expand_respect_tags",
        bool,
        description="Apply the `tags` filter to expanded memories too (default false: unscoped).",
    ),
    OpenApiParameter(
        "time_query",
        str,
        description="A time phrase resolved to start/end on the memory's time: today, yesterday, "
        "last 24 hours, last 48 hours, last N days, this week, last week, this month, last month, "
        "this year, last year, 'in May 2023', 'since March 2024'. Not with start/end.",
    ),
    OpenApiParameter(
        "sort",
        str,
        enum=["score", "time_desc", "time_asc"],
        description="score (default), or the results listed by time; with a query the best-scored "
        "results are chosen first.",
    ),
]


RECALL_BODY = {
    "type": "object",
    "properties": {
        parameter.name: (
            parameter.type if isinstance(parameter.type, dict) else build_basic_type(parameter.type)
        )
        for parameter in RECALL_PARAMETERS
    },
}


class RecallView(APIView):
    # POST only carries the GET parameters in a body: both may read from a replica.
    reads_only = True

    @extend_schema(
        summary="Hybrid recall",
        description="Vector (HNSW) and full-text candidates fused into one score: "
        "vector, keyword, relation, tag, importance, confidence, recency and context, "
        "with configurable weights.",
        parameters=RECALL_PARAMETERS,
        responses=s.RecallResponseSerializer,
    )
    def get(self, request):
        return self.recall(request, request.query_params)

    @extend_schema(
        summary="Hybrid recall with the parameters in a JSON body",
        description="The same as GET /recall, for queries too long for a URL: the body is an "
        "object with the GET parameters as keys (lists for repeated ones).",
        request={"application/json": RECALL_BODY},
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
        request=s.ReembedInputSerializer,
        responses={200: s.ReembedResponseSerializer, 202: JobAcceptedSerializer},
    )
    def post(self, request):
        ids, batch_size = validators.parse_reembed(json_body(request))
        if ids is None or len(ids) > services.REEMBED_INLINE_MAX:
            return accepted(services.queue_reembed(ids, batch_size))
        memories = Memory.objects.filter(pk__in=ids)
        return Response({"status": "success", **services.reembed_memories(memories, batch_size)})
