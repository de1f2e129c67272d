from django.conf import settings
from django.db import DatabaseError

from memsite import replicas
from memsite.api.exceptions import DATABASE_UNAVAILABLE, envelope_response
from memsite.db import is_unreachable


class RequestSizeLimitMiddleware:
    """Answer bodies larger than MEMSITE_MAX_REQUEST_BYTES (or a path's own limit, such as
    MEMSITE_IMPORT_MAX_BYTES for POST /import) with 413 before anything reads them."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return envelope_response(400, "Invalid Content-Length header")
        limit = settings.MAX_REQUEST_BYTES_BY_PATH.get(request.path, settings.MAX_REQUEST_BYTES)
        if length > limit:
            return envelope_response(413, f"Request body exceeds the maximum of {limit} bytes")
        return self.get_response(request)


class DatabaseUnavailableMiddleware:
    """Turn a lost database connection anywhere outside DRF into the 503 envelope."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            return self.get_response(request)
        except DatabaseError as error:
            if is_unreachable(error):
                return envelope_response(503, DATABASE_UNAVAILABLE)
            raise

    def process_exception(self, request, exception):
        if is_unreachable(exception):
            return envelope_response(503, DATABASE_UNAVAILABLE)
        return None


class ReplicaRoutingMiddleware:
    """Run each request in a replica scope (memsite/replicas.py).

    GET and HEAD requests, and views that declare `reads_only = True` for their other methods,
    may read from a replica; a request that succeeded and may have written pins its user to the
    primary.
    """

    SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        with replicas.serving(lambda: getattr(request, "user", None), reads_only=False) as scope:
            request.replica_scope = scope
            response = self.get_response(request)
            scope.succeeded = response.status_code < 400
        return response

    def process_view(self, request, view_func, view_args, view_kwargs):
        view_class = getattr(view_func, "view_class", None)
        request.replica_scope.reads_only = request.method in self.SAFE_METHODS or getattr(
            view_class, "reads_only", False
        )
