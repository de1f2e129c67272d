"""The one pagination rule of every list: `limit` 1–500 (default 50) and `offset` 0–1,000,000.

A value outside those ranges, or one that is not an integer, is a 400 naming the parameter (DRF's
LimitOffsetPagination would silently fall back to the default).
"""

from drf_spectacular.utils import OpenApiParameter
from rest_framework.pagination import LimitOffsetPagination

from memsite.api.schema import integer
from memsite.validation import query_int

DEFAULT_LIMIT = 50
MAX_LIMIT = 500
MAX_OFFSET = 1_000_000


class Pagination(LimitOffsetPagination):
    default_limit = DEFAULT_LIMIT
    max_limit = MAX_LIMIT

    def get_limit(self, request):
        return self.read_limit(request.query_params)

    def get_offset(self, request):
        return self.read_offset(request.query_params)

    def read_limit(self, params):
        return query_int(params, self.limit_query_param, DEFAULT_LIMIT, 1, MAX_LIMIT)

    def read_offset(self, params):
        return query_int(params, self.offset_query_param, 0, 0, MAX_OFFSET)

    def get_schema_operation_parameters(self, view):
        limit, offset = super().get_schema_operation_parameters(view)
        limit["schema"].update(minimum=1, maximum=MAX_LIMIT, default=DEFAULT_LIMIT)
        offset["schema"].update(minimum=0, maximum=MAX_OFFSET, default=0)
        return [limit, offset]

    @staticmethod
    def parameters():
        """The two query parameters, for views that page by hand (`page`)."""
        return [
            OpenApiParameter("limit", integer(1, MAX_LIMIT, DEFAULT_LIMIT)),
            OpenApiParameter("offset", integer(0, MAX_OFFSET, 0)),
        ]

    def page(self, queryset, params):
        """One page of `queryset` for a view that renders its own body, from its query parameters
        (a QueryDict); sets `limit`, `offset` and `count` as paginate_queryset does."""
        self.limit, self.offset = self.read_limit(params), self.read_offset(params)
        self.count = queryset.count()
        return list(queryset[self.offset : self.offset + self.limit])
