"""GET /api/jobs/<id>: where a queued job stands, for the operations that answer 202."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from memsite import jobs
from memsite.errors import NotFound

JOB_NOT_FOUND = "Job not found"


class JobAcceptedSerializer(serializers.Serializer):
    status = serializers.CharField(help_text="accepted")
    job_id = serializers.IntegerField()
    poll = serializers.CharField(help_text="where to follow the job")


def accepted(job_id, **extra):
    """The 202 answer of an operation that queued job `job_id`."""
    body = {"status": "accepted", "job_id": job_id, "poll": f"/api/jobs/{job_id}", **extra}
    return Response(body, status=status.HTTP_202_ACCEPTED)


class JobSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    task = serializers.CharField()
    queue = serializers.CharField()
    status = serializers.CharField()
    attempts = serializers.IntegerField()
    progress = serializers.DictField(
        allow_null=True,
        help_text="a waiting or running job's counts so far, for tasks that report them (an import: "
        "status, lines, done_lines, imported, skipped, failed and counts per kind), else null",
    )
    result = serializers.DictField(allow_null=True)
    error = serializers.CharField()


class JobView(APIView):
    @extend_schema(
        summary="One background job",
        description="`status` is todo, doing, succeeded, failed, cancelled or aborted; `result` is "
        "what a succeeded job answered (e.g. a detection summary) and `error` why the last attempt "
        "failed. `progress` is how far a waiting or running job has got, for tasks that report it "
        "(an import: lines done of all, imported, skipped and failed in all and per kind), else "
        "null. Your own jobs only (staff see every job); any other id answers 404.",
        responses=inline_serializer(
            "JobResponse",
            {"status": serializers.CharField(), "job": JobSerializer()},
        ),
    )
    def get(self, request, job_id):
        job = jobs.job_for_user(request.user, job_id)
        if job is None:
            raise NotFound(JOB_NOT_FOUND)
        return Response({"status": "success", "job": job})
