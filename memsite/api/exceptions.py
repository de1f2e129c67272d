"""The error envelope of every API response: {"status": "error", "code": N, "message": "..."}."""

import logging

from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import Http404, JsonResponse
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

logger = logging.getLogger(__name__)
DATABASE_UNAVAILABLE = "Database unavailable: PostgreSQL cannot be reached"
CONFLICT = "Conflicting concurrent change; try again"
# SQLSTATEs (PostgreSQL appendix A) that mean no usable connection: connection exceptions,
# insufficient resources (too many connections), and a server shutting down or starting up.
UNREACHABLE_CLASSES = ("08", "53")
SHUTDOWN_CODES = {"57P01", "57P02", "57P03"}
# A deadlock or a serialization failure: the transaction lost a race.
CONFLICT_CODES = {"40001", "40P01"}


def sqlstate(error):
    """The SQLSTATE of a Django database error (None when PostgreSQL sent none)."""
    return getattr(error.__cause__, "sqlstate", None)


def is_unreachable(error):
    """Whether a database error means PostgreSQL cannot be reached: the only cause of a 503.

    An OperationalError without a SQLSTATE came from the client side (refused or lost socket).
    """
    if isinstance(error, InterfaceError):
        return True
    if not isinstance(error, OperationalError):
        return False
    code = sqlstate(error)
    return code is None or code.startswith(UNREACHABLE_CLASSES) or code in SHUTDOWN_CODES


def is_conflict(error):
    return isinstance(error, OperationalError) and sqlstate(error) in CONFLICT_CODES


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


class ApiError(exceptions.APIException):
    """An error with a fixed status and the exact message to show."""

    def __init__(self, message, code=status.HTTP_400_BAD_REQUEST):
        self.status_code = code
        super().__init__(message)


def envelope_exception_handler(exc, context):
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
