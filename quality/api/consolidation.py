"""Consolidation runs and boost resets over the API.

Runs work on every user's memories at once, so starting and listing them is for staff; resetting
a boost is for the memory's owner.
"""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAdminUser
from rest_framework.response import Response
from rest_framework.views import APIView

from memories.queries import get_memory_for_user
from memsite.api.jobs import accepted
from memsite.api.pagination import PAGE, Pagination
from memsite.api.parameters import KnownParameters
from memsite.api.specs import request_body, validate
from memsite.errors import Conflict, Invalid, NotFound
from memsite.validation import json_body
from quality.api.specs import RUN
from quality.consolidation import (
    PHASES,
    ConsolidationBusy,
    queue_consolidation,
    recover_abandoned_runs,
    reset_boost,
)
from quality.models import ConsolidationRun

RUN_NOT_FOUND = "Consolidation run not found"
NO_BOOST = "Memory has no quality boost to reset"


class ConsolidationRunSerializer(serializers.ModelSerializer):
    started_by = serializers.SlugRelatedField(
        slug_field="username",
        read_only=True,
        allow_null=True,
        help_text="Who asked for the run; null for the schedule, `manage.py consolidate` or a deleted user.",
    )
    duration_ms = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField()
    phases = serializers.SerializerMethodField()

    class Meta:
        model = ConsolidationRun
        fields = [
            "id",
            "status",
            "dry_run",
            "started_at",
            "finished_at",
            "duration_ms",
            "started_by",
            "phase",
            "progress",
            "phases",
            "parameters",
            "error",
        ]
        read_only_fields = fields

    def get_duration_ms(self, run) -> int | None:
        if run.finished_at is None:
            return None
        return round((run.finished_at - run.started_at).total_seconds() * 1000)

    def get_phases(self, run) -> dict:
        """Counts and duration_ms of each finished phase, in the order the phases run."""
        return {name: run.phases[name] for name, _, _ in PHASES if name in run.phases}

    def get_progress(self, run) -> dict:
        return {"completed_phases": len(run.phases), "total_phases": len(PHASES)}


class RunResponseSerializer(serializers.Serializer):
    status = serializers.CharField()
    run = ConsolidationRunSerializer()


class RunAcceptedSerializer(serializers.Serializer):
    status = serializers.CharField(help_text="accepted")
    job_id = serializers.IntegerField()
    poll = serializers.CharField(help_text="the run's own URL: follow its status and phase there")
    run = ConsolidationRunSerializer()


class RunListSerializer(serializers.Serializer):
    status = serializers.CharField()
    count = serializers.IntegerField()
    runs = ConsolidationRunSerializer(many=True)


class ResetBoostResponseSerializer(serializers.Serializer):
    status = serializers.CharField()
    memory_id = serializers.UUIDField()
    quality_score = serializers.FloatField()
    quality_overall = serializers.FloatField()


class ConsolidationRunView(APIView):
    error_statuses = {"POST": (409,)}

    permission_classes = [IsAdminUser]

    @extend_schema(
        summary="Run consolidation",
        description="Re-evaluates quality, applies the association boost, scores relevance, archives "
        "by quality-based retention, runs auto-cleanup and takes a snapshot, over every live memory. "
        "`dry_run` (default true) records what would change and changes nothing. The run is queued "
        "for a worker: 202 with the queued run and the URL to poll. One run at a time: 409 while "
        "another is queued or in progress. Staff only.",
        request=request_body(RUN),
        responses={202: RunAcceptedSerializer, 409: OpenApiResponse(description=ConsolidationBusy.__doc__)},
    )
    def post(self, request):
        params = validate(RUN, json_body(request, optional=True))
        try:
            run, job_id = queue_consolidation(dry_run=params["dry_run"], started_by=request.user)
        except ConsolidationBusy as busy:
            raise Conflict(str(busy)) from None
        return accepted(
            job_id, poll=f"/api/consolidation/runs/{run.pk}", run=ConsolidationRunSerializer(run).data
        )


class ConsolidationRunListView(KnownParameters, APIView):
    query_spec = PAGE
    permission_classes = [IsAdminUser]

    @extend_schema(
        summary="Consolidation runs",
        description="Newest first, with per-phase counts and durations. Staff only.",
        parameters=Pagination.parameters(),
        responses=RunListSerializer,
    )
    def get(self, request):
        recover_abandoned_runs()
        paginator = Pagination()
        runs = ConsolidationRun.objects.select_related("started_by").order_by("-started_at", "-pk")
        data = ConsolidationRunSerializer(paginator.page(runs, request.query_params), many=True).data
        return Response({"status": "success", "count": paginator.count, "runs": data})


class ConsolidationRunDetailView(KnownParameters, APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(
        summary="One consolidation run",
        description="Its status, current phase and progress while running, per-phase counts and "
        "durations. Staff only.",
        responses=RunResponseSerializer,
    )
    def get(self, request, run_id):
        recover_abandoned_runs()
        run = ConsolidationRun.objects.select_related("started_by").filter(pk=run_id).first()
        if run is None:
            raise NotFound(RUN_NOT_FOUND)
        return Response({"status": "success", "run": ConsolidationRunSerializer(run).data})


class ResetBoostView(APIView):
    @extend_schema(
        summary="Reset a memory's quality boost",
        description="Sets `quality_score` back to the overall quality, clears the boost fields (row "
        "and metadata) and records a `reset` boost. The next consolidation boosts the memory again "
        "if it is still well connected. 400 when the memory has no boost.",
        request=None,
        responses=ResetBoostResponseSerializer,
    )
    def post(self, request, memory_id):
        memory = get_memory_for_user(request.user, memory_id)
        if not reset_boost(memory):
            raise Invalid(NO_BOOST)
        return Response(
            {
                "status": "success",
                "memory_id": memory.pk,
                "quality_score": memory.quality_score,
                "quality_overall": memory.quality_overall,
            }
        )
