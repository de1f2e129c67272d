"""REST endpoints for memories: validate, call one service or query, render."""

import time

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAdminUser, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from memories import queries, recall, services
from memories.api import serializers as s
from memories.api import validators
from memories.models import Memory
from memsite.api.exceptions import ApiError

ID_PARAMETER = OpenApiParameter("memory_id", str, OpenApiParameter.PATH, description="The memory's UUID.")


def elapsed_ms(started):
    return round((time.perf_counter() - started) * 1000, 2)


def memory_body(memory, **extra):
    return {"status": "success", "memory_id": memory.pk, **extra, "memory": s.MemorySerializer(memory).data}


class MemoryCreateView(APIView):
    @extend_schema(
        summary="Store a memory",
        description="Embeds and evaluates the memory before answering. Content equal to one of your "
        "live memories answers 200 with the existing id and `duplicate: true`.",
        request=s.MemoryInputSerializer,
        responses={201: s.StoreResponseSerializer, 200: s.StoreResponseSerializer},
    )
    def post(self, request):
        started = time.perf_counter()
        item = validators.parse_memory(validators.json_body(request))
        memory, duplicate = services.store_memory(request.user, item)
        body = {
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
        return Response(body, status=status.HTTP_200_OK if duplicate else status.HTTP_201_CREATED)


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
        started = time.perf_counter()
        raw_items = validators.parse_batch(validators.json_body(request))
        items, indexes, failed = [], [], []
        for index, raw in enumerate(raw_items):
            try:
                items.append(validators.parse_memory(raw))
            except ApiError as error:
                reason = "Memory must be an object" if not isinstance(raw, dict) else str(error.detail)
                failed.append({"index": index, "reason": reason})
                continue
            indexes.append(index)
        stored = services.store_memories(request.user, items) if items else []
        succeeded = [
            {"index": index, "memory_id": memory.pk, "duplicate": duplicate}
            for index, (memory, duplicate) in zip(indexes, stored, strict=True)
        ]
        body = {
            "status": "partial_success" if failed else "success",
            "stored_count": sum(not item["duplicate"] for item in succeeded),
            "duplicate_count": sum(item["duplicate"] for item in succeeded),
            "failed_count": len(failed),
            "succeeded": succeeded,
            "failed": failed,
            "query_time_ms": elapsed_ms(started),
        }
        return Response(body, status=status.HTTP_207_MULTI_STATUS if failed else status.HTTP_201_CREATED)


class MemoryDetailView(APIView):
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
        changes = validators.parse_memory_changes(validators.json_body(request))
        return Response(memory_body(services.update_memory(memory, changes)))

    @extend_schema(
        summary="Delete a memory",
        description="Removes the memory, its associations and its graph vertex.",
        parameters=[ID_PARAMETER],
        responses=s.MemoryResponseSerializer,
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
        source_id = validators.parse_source_id(validators.json_body(request))
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
            OpenApiParameter("limit", int, description="1–200, default 20."),
            OpenApiParameter("offset", int, description="Default 0."),
        ],
        responses=s.ByTagResponseSerializer,
    )
    def get(self, request):
        tags, limit, offset = validators.parse_by_tag(request.query_params)
        memories = queries.memories_by_tag(request.user, tags, limit, offset)
        return Response(
            {
                "status": "success",
                "tags": tags,
                "count": len(memories),
                "limit": limit,
                "offset": offset,
                "memories": s.MemorySerializer(memories, many=True).data,
            }
        )


RECALL_PARAMETERS = [
    OpenApiParameter("query", str, description="Free text; omit to list by recency with the filters."),
    OpenApiParameter("tags", str, description="Comma list or repeated."),
    OpenApiParameter("tag_mode", str, enum=["any", "all"]),
    OpenApiParameter("tag_match", str, enum=["exact", "prefix"]),
    OpenApiParameter("exclude_tags", str, description="Comma list or repeated."),
    OpenApiParameter("type", str, description="Memory type(s), case-insensitive, comma list."),
    OpenApiParameter("start", str, description="ISO 8601; created at or after."),
    OpenApiParameter("end", str, description="ISO 8601; created at or before."),
    OpenApiParameter("limit", int, description="1–100, default 5."),
    OpenApiParameter("min_quality", float, description="Keep quality_score ≥ this (0–1)."),
    OpenApiParameter("rank_by_quality", bool, description="Order by 0.7·quality + 0.3·final."),
    OpenApiParameter("include_archived", bool),
    OpenApiParameter("expand_relations", bool),
    OpenApiParameter("expand_entities", bool),
    OpenApiParameter("relation_limit", int, description="1–100, default 5."),
    OpenApiParameter("expansion_limit", int, description="1–500, default 25."),
    OpenApiParameter("expand_min_strength", float),
    OpenApiParameter("expand_min_importance", float),
    OpenApiParameter("max_hops", int, description="1–3, default 1."),
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


class RecallView(APIView):
    @extend_schema(
        summary="Hybrid recall",
        description="Vector (HNSW) and full-text candidates fused into one score: "
        "vector, keyword, relation, tag, importance, confidence, recency and context, "
        "with configurable weights.",
        parameters=RECALL_PARAMETERS,
        responses=s.RecallResponseSerializer,
    )
    def get(self, request):
        options = validators.parse_recall(request.query_params)
        found = recall.recall(request.user, options)
        results = s.RecallResultSerializer(found["results"], many=True).data
        return Response(
            {
                "status": "success",
                "query": options.query,
                "results": results,
                "count": len(results),
                "query_time_ms": found["query_time_ms"],
                "expansion": found["expansion"],
            }
        )


class ReembedView(APIView):
    permission_classes = [IsAuthenticated, IsAdminUser]

    @extend_schema(
        summary="Recompute vectors (staff)",
        description="Re-embeds the given memories (any owner) or all of them, in batches. Large "
        "collections are better served by `manage.py reembed`.",
        request=s.ReembedInputSerializer,
        responses=s.ReembedResponseSerializer,
    )
    def post(self, request):
        ids, batch_size = validators.parse_reembed(validators.json_body(request))
        memories = Memory.objects.all() if ids is None else Memory.objects.filter(pk__in=ids)
        return Response({"status": "success", **services.reembed_memories(memories, batch_size)})
