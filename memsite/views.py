import hmac

from django.conf import settings
from django.db import DatabaseError, connection
from django_prometheus.exports import ExportToDjangoView
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import api_view, authentication_classes, permission_classes, throttle_classes
from rest_framework.response import Response

from memsite import jobs
from memsite.api.exceptions import envelope_response


@extend_schema(
    summary="Service health",
    responses=inline_serializer(
        "Health",
        {
            "status": serializers.CharField(),
            "database": serializers.CharField(),
            "pgvector": serializers.CharField(),
            "age": serializers.CharField(),
            "queue": inline_serializer(
                "HealthQueue",
                {
                    "waiting": serializers.IntegerField(),
                    "heartbeat_age_seconds": serializers.FloatField(allow_null=True),
                },
            ),
            "version": serializers.CharField(),
        },
    ),
)
@api_view(["GET"])
@authentication_classes([])
@permission_classes([])
@throttle_classes([])
def health(request):
    """Public and minimal: is the database reachable, are pgvector and AGE installed, do jobs run.

    503 when the database or an extension is missing. When jobs wait and no worker has sent a
    heartbeat for MEMSITE_WORKER_STALE_SECONDS, the status is "degraded" with 200: requests are
    still served, only background work is stuck.
    """
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT extname, extversion FROM pg_extension WHERE extname IN ('vector', 'age')")
            extensions = dict(cursor.fetchall())
        queue = jobs.queue_health()
    except DatabaseError:
        body = {
            "status": "unavailable",
            "database": "unavailable",
            "pgvector": "unknown",
            "age": "unknown",
            "version": settings.VERSION,
        }
        return Response(body, status=503)
    pgvector = "ok" if "vector" in extensions else "missing"
    age = "ok" if "age" in extensions else "missing"
    healthy = pgvector == "ok" and age == "ok"
    body = {
        "status": "ok" if healthy and not queue["stalled"] else "degraded",
        "database": "ok",
        "pgvector": pgvector,
        "age": age,
        "queue": {"waiting": queue["waiting"], "heartbeat_age_seconds": queue["heartbeat_age_seconds"]},
        "version": settings.VERSION,
    }
    return Response(body, status=200 if healthy else 503)


def metrics(request):
    """Prometheus metrics for staff sessions, or with `Authorization: Bearer MEMSITE_METRICS_TOKEN`."""
    given = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
    token = settings.METRICS_TOKEN
    if not (token and given and hmac.compare_digest(given, token)):
        if not request.user.is_authenticated:
            return envelope_response(401, "Authentication credentials were not provided")
        if not request.user.is_staff:
            return envelope_response(403, "Permission denied")
    return ExportToDjangoView(request)


def not_found(request, exception=None):
    return envelope_response(404, "Not found")


def server_error(request):
    return envelope_response(500, "Internal server error")


def permission_denied(request, exception=None):
    return envelope_response(403, "Permission denied")


def bad_request(request, exception=None):
    return envelope_response(400, "Bad request")
