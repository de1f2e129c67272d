import hmac

from django.conf import settings
from django.http import HttpResponseRedirect, JsonResponse
from django.urls import reverse
from django.views.decorators.http import require_safe
from django_prometheus.exports import ExportToDjangoView
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import api_view, authentication_classes, permission_classes, throttle_classes
from rest_framework.response import Response

from memsite.api.exceptions import envelope_response
from memsite.health import is_serving, service_health


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
            "replicas": inline_serializer(
                "HealthReplica",
                {
                    "alias": serializers.CharField(),
                    "state": serializers.ChoiceField(["ok", "lagging", "not_standby", "down"]),
                    "lag_seconds": serializers.FloatField(allow_null=True),
                },
                many=True,
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

    503 when requests cannot be served; "degraded" with 200 when only background work is stuck.
    """
    body = service_health()
    return Response(body, status=200 if is_serving(body) else 503)


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


@require_safe
def home(request):
    """The address `make run` prints: a browser goes to the dashboard; any other client gets where
    things are (no authentication needed to learn that)."""
    if "text/html" in request.headers.get("Accept", ""):
        return HttpResponseRedirect(reverse("dashboard:overview"))
    links = {
        "dashboard": "dashboard:overview",
        "admin": "admin:index",
        "api_docs": "docs",
        "health": "health",
    }
    return JsonResponse({"status": "success", **{name: reverse(url) for name, url in links.items()}})
