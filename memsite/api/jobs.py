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


class JobView(APIView):
    @extend_schema(
        summary="One background job",
        description="`status` is todo, doing, succeeded, failed, cancelled or aborted; `result` is "
        "what a succeeded job answered (e.g. a detection summary) and `error` why the last attempt "
        "failed. Your own jobs only (staff see every job); any other id answers 404.",
        responses=inline_serializer(
            "JobResponse",
            {"status": serializers.CharField(), "job": serializers.DictField()},
        ),
    )
    def get(self, request, job_id):
        job = jobs.job_for_user(request.user, job_id)
        if job is None:
            raise NotFound(JOB_NOT_FOUND)
        return Response({"status": "success", "job": job})
