"""REST endpoints under /api/quality/: validate, call one query or service, render.

Every endpoint is scoped to the token's user: another user's memory or finding answers 404.
"""

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from memories.queries import get_memory_for_user
from memsite.api.jobs import JobAcceptedSerializer, accepted
from memsite.api.pagination import Pagination
from memsite.api.parameters import KnownParameters
from memsite.api.specs import parameters, request_body, validate
from memsite.validation import json_body
from quality import queries, services
from quality.api import serializers as s
from quality.api import specs
from quality.filters import InconsistencyFilterSet
from quality.models import Inconsistency

MEMORY_ID = OpenApiParameter("memory_id", str, OpenApiParameter.PATH, description="The memory's UUID.")
FINDING_ID = OpenApiParameter("pk", int, OpenApiParameter.PATH, description="The inconsistency's id.")


class DistributionView(KnownParameters, APIView):
    query_spec = specs.DISTRIBUTION

    @extend_schema(
        summary="Quality distribution",
        description="Tier counts (high ≥ 0.7, medium 0.5–0.7, low < 0.5 on the effective score), "
        "average, provider breakdown (`dimensions`, `association_boost`, `unevaluated`), top and "
        "bottom ten, a histogram of ten 0.1 buckets and the boosted count, over live memories "
        "with `min_quality ≤ quality_score ≤ max_quality`.",
        parameters=parameters(specs.DISTRIBUTION),
        responses=s.DistributionSerializer,
    )
    def get(self, request):
        params = validate(specs.DISTRIBUTION, request.query_params)
        return Response(queries.quality_distribution(request.user, **params))


class MemoryQualityView(KnownParameters, APIView):
    @extend_schema(
        summary="One memory's quality",
        description="Current dimensions, provenance, boost state, the last 50 assessments and "
        "boosts, and the findings that name it.",
        parameters=[MEMORY_ID],
        responses=s.MemoryQualitySerializer,
    )
    def get(self, request, memory_id):
        memory = get_memory_for_user(request.user, memory_id)
        return Response(s.MemoryQualitySerializer(queries.memory_quality(memory)).data)


class EvaluateView(APIView):
    error_statuses = {"POST": (404,)}

    @extend_schema(
        summary="Re-evaluate memories, or score them for a query",
        description='Evaluates `memory_ids` (up to 1,000) or, with `"all": true`, every live memory, '
        "stores the scores and records each evaluation in the memory's assessment history. With "
        "`query` (and `memory_ids`) it only answers: each memory's scores relative to the query "
        "(relevance is the cosine similarity to it), `stored: false`, and the stored scores and "
        "every later ranking stay as they were.",
        request=request_body(specs.EVALUATE),
        responses=s.EvaluateResponseSerializer,
    )
    def post(self, request):
        params = validate(specs.EVALUATE, json_body(request, optional=True))
        ids, query = params.get("memory_ids"), params["query"]
        if query:
            memories = services.scores_for_query(request.user, ids, query)
            return Response(
                {"status": "success", "evaluated": 0, "stored": False, "query": query, "memories": memories}
            )
        evaluated = services.evaluate_quality(request.user, ids)
        memories = [] if ids is None else queries.current_quality(request.user, ids)
        return Response(
            {"status": "success", "evaluated": evaluated, "stored": True, "query": "", "memories": memories}
        )


class ReportView(KnownParameters, APIView):
    @extend_schema(
        summary="Quality report",
        description="Statistics, dimension averages, open findings by type, the five most common "
        "issues and recommendations, each with a `code` and an English `message`. Recommendation "
        "rules (seed 001's analyzer): `low_average_quality` (average < WarningThreshold), "
        "`weak_accuracy` / `weak_completeness` / `weak_consistency` / `weak_timeliness` (dimension "
        "average < 0.6), `contradictions_found` (any open), `duplicates_found` (more than 3 open), "
        "`many_low_quality` (over 25% in the low tier); and `outdated_found`, "
        "`low_confidence_found` (any open).",
        responses=s.ReportSerializer,
    )
    def get(self, request):
        return Response(queries.quality_report(request.user))


@extend_schema_view(
    get=extend_schema(
        summary="Improvement suggestions",
        description="Memories below MinQualityThreshold, worst first, each with suggestion codes: "
        "`add_corroboration` (accuracy < 0.5), `add_detail` (completeness < 0.5), "
        "`resolve_contradiction` (an open contradiction), `find_supporting_evidence` "
        "(consistency < 0.5), `verify_or_archive` (timeliness < 0.5).",
    )
)
class ImprovementsView(KnownParameters, ListAPIView):
    serializer_class = s.ImprovementSerializer
    pagination_class = Pagination
    filter_backends = []

    def get_queryset(self):
        return queries.poor_memories(self.request.user)

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response([queries.improvement(memory) for memory in page])


@extend_schema_view(
    get=extend_schema(
        summary="Low-quality memories",
        description="Live memories with `quality_score < threshold` (default WarningThreshold), worst first.",
        parameters=parameters(specs.LOW),
    )
)
class LowQualityView(KnownParameters, ListAPIView):
    query_spec = specs.LOW
    serializer_class = s.MemorySummarySerializer
    pagination_class = Pagination
    filter_backends = []

    def get_queryset(self):
        threshold = validate(specs.LOW, self.request.query_params)["threshold"]
        return queries.low_quality_memories(self.request.user, threshold)

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response([queries.memory_summary(memory) for memory in page])


@extend_schema_view(
    get=extend_schema(
        summary="Inconsistencies",
        description="Findings of detection, most severe first; filter by `type`, `status`, "
        "`memory` and `min_severity`.",
    )
)
class InconsistencyListView(KnownParameters, ListAPIView):
    queryset = Inconsistency.objects.none()  # for the schema; get_queryset scopes to the caller
    serializer_class = s.InconsistencySerializer
    pagination_class = Pagination
    filterset_class = InconsistencyFilterSet

    def get_queryset(self):
        return queries.inconsistencies_of(self.request.user).select_related("resolved_by")


class InconsistencyDetailView(KnownParameters, APIView):
    @extend_schema(summary="One inconsistency", parameters=[FINDING_ID], responses=s.InconsistencySerializer)
    def get(self, request, pk):
        finding = queries.get_inconsistency_for_user(request.user, pk)
        return Response(s.InconsistencySerializer(finding).data)


class DetectView(APIView):
    @extend_schema(
        summary="Detect inconsistencies",
        description="Queues detection over your live memories: duplicates and contradictions among "
        "each memory's nearest neighbours and CONTRADICTS links, outdated and low-confidence "
        "memories. Idempotent; dismissed findings stay dismissed. Answers 202 with the job id; "
        "`GET /api/jobs/<id>` gives its status and, once it succeeded, the run's summary.",
        request=None,
        responses={202: JobAcceptedSerializer},
    )
    def post(self, request):
        return accepted(services.queue_detection(request.user))


class ResolveView(APIView):
    error_statuses = {"POST": (409,)}

    @extend_schema(
        summary="Resolve an inconsistency",
        description="`keep_both`; `archive` (`memory_id`: which one); `merge` (duplicates: "
        "`memory_id` is kept, default the better one; the other is archived and its source "
        "corroborates the kept one); `link_contradicts`, `link_invalidated_by` (`memory_id` is the "
        "edge's source; for INVALIDATED_BY the default is the older memory; `reason` is stored on "
        "the edge). `reason` is kept as the finding's `note`. Only open findings can be resolved "
        "(409 otherwise).",
        parameters=[FINDING_ID],
        request=request_body(specs.RESOLVE),
        responses=s.InconsistencySerializer,
    )
    def post(self, request, pk):
        finding = queries.get_inconsistency_for_user(request.user, pk)
        params = validate(specs.RESOLVE, json_body(request, optional=True))
        finding = services.resolve_inconsistency(
            finding, params["action"], request.user, params.get("memory_id"), params["reason"]
        )
        return Response(s.InconsistencySerializer(finding).data)


class ReclassifyView(APIView):
    error_statuses = {"POST": (409,)}

    @extend_schema(
        summary="Reclassify an inconsistency",
        description="Turns an open contradiction between two memories into a duplicate or back, "
        "so that the other type's actions apply (`merge` for duplicates). The finding keeps its id "
        "and answers the type it had in `reclassified_from`; detection leaves it open and does not "
        "file the old type for the pair again. 409 when the finding is closed, already of that "
        "type, or the pair already has a finding of the new type.",
        parameters=[FINDING_ID],
        request=request_body(specs.RECLASSIFY),
        responses=s.InconsistencySerializer,
    )
    def post(self, request, pk):
        finding = queries.get_inconsistency_for_user(request.user, pk)
        params = validate(specs.RECLASSIFY, json_body(request))
        finding = services.reclassify_inconsistency(finding, params["type"], request.user)
        return Response(s.InconsistencySerializer(finding).data)


class DismissView(APIView):
    error_statuses = {"POST": (409,)}

    @extend_schema(
        summary="Dismiss an inconsistency",
        description="A dismissed finding stays dismissed when detection runs again.",
        parameters=[FINDING_ID],
        request=None,
        responses=s.InconsistencySerializer,
    )
    def post(self, request, pk):
        finding = queries.get_inconsistency_for_user(request.user, pk)
        return Response(s.InconsistencySerializer(services.dismiss_inconsistency(finding, request.user)).data)


@extend_schema_view(get=extend_schema(summary="Association boost history", description="Newest first."))
class BoostListView(KnownParameters, ListAPIView):
    serializer_class = s.BoostSerializer
    pagination_class = Pagination
    filter_backends = []

    def get_queryset(self):
        return queries.boosts_of(self.request.user).order_by("-created_at", "-pk")


class TrendsView(KnownParameters, APIView):
    query_spec = specs.TRENDS

    @extend_schema(
        summary="Quality trends",
        description="Snapshots (taken by consolidation) and daily averages of assessments over the "
        "last `days` days (1–365, default 30), with a trend per dimension: `improving`, "
        "`declining` or `stable` (change within ±0.01).",
        parameters=parameters(specs.TRENDS),
        responses=s.TrendsSerializer,
    )
    def get(self, request):
        days = validate(specs.TRENDS, request.query_params)["days"]
        return Response(queries.quality_trends(request.user, days))
