"""The error envelope of every API response: {"status": "error", "code": N, "message": "..."}."""

import logging

from django.db import DatabaseError
from django.http import Http404, JsonResponse
from rest_framework import exceptions
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import exception_handler

from memsite.db import CONFLICT, is_conflict, is_unreachable
from memsite.errors import DomainError

logger = logging.getLogger(__name__)
DATABASE_UNAVAILABLE = "Database unavailable: PostgreSQL cannot be reached"


def envelope(code, message):
    return {"status": "error", "code": code, "message": message}


def envelope_response(code, message, headers=None):
    """A plain Django response with the envelope, for code outside DRF views."""
    response = JsonResponse(envelope(code, message), status=code)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def flatten_errors(detail, field=None):
    """DRF's nested validation errors as one message naming the first offending field."""
    if isinstance(detail, dict):
        key, value = next(iter(detail.items()), (None, "Invalid input"))
        if key not in (None, "non_field_errors"):
            field = f"{field}.{key}" if field else str(key)
        return flatten_errors(value, field)
    if isinstance(detail, list):
        return flatten_errors(detail[0] if detail else "Invalid input", field)
    return f"'{field}': {detail}" if field else str(detail)


def envelope_exception_handler(exc, context):
    """Every error as the JSON envelope, whatever the view renders otherwise (HTML docs, YAML)."""
    request = context.get("request")
    if request is not None:
        request.accepted_renderer, request.accepted_media_type = JSONRenderer(), "application/json"
    if isinstance(exc, DomainError):
        return Response(envelope(exc.status, exc.message), status=exc.status)
    if is_unreachable(exc):
        logger.warning("database unavailable: %s", exc)
        return Response(envelope(503, DATABASE_UNAVAILABLE), status=503)
    if is_conflict(exc):
        logger.warning("concurrent change lost: %s", exc)
        return Response(envelope(409, CONFLICT), status=409)
    if isinstance(exc, DatabaseError):
        logger.exception("database error")
        return Response(envelope(500, "Internal database error"), status=500)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) if str(exc) else "Not found")
    response = exception_handler(exc, context)
    if response is None:
        logger.exception("unhandled error", exc_info=exc)
        return Response(envelope(500, "Internal server error"), status=500)
    if isinstance(exc, exceptions.ValidationError) or isinstance(exc.detail, (dict, list)):
        message = flatten_errors(exc.detail)
    else:
        message = str(exc.detail)
    response.data = envelope(response.status_code, message)
    return response
