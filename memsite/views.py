from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import api_view, authentication_classes, permission_classes, throttle_classes
from rest_framework.response import Response

from memsite.api.exceptions import envelope_response
from memsite.health import service_health


@extend_schema(
    summary="Service health",
    responses=inline_serializer(
        "Health",
        {
            "status": serializers.CharField(),
            "database": serializers.CharField(),
            "pgvector": serializers.CharField(),
            "age": serializers.CharField(),
            "version": serializers.CharField(),
        },
    ),
)
@api_view(["GET"])
@authentication_classes([])
@permission_classes([])
@throttle_classes([])
def health(request):
    """Public and minimal: is the database reachable, and are pgvector and AGE installed."""
    body = service_health()
    return Response(body, status=200 if body["status"] == "ok" else 503)


def not_found(request, exception=None):
    return envelope_response(404, "Not found")


def server_error(request):
    return envelope_response(500, "Internal server error")


def permission_denied(request, exception=None):
    return envelope_response(403, "Permission denied")


def bad_request(request, exception=None):
    return envelope_response(400, "Bad request")
