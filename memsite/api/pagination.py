"""The one pagination rule of every list: `limit` 1–500 (default 50) and `offset` 0–1,000,000.

A value outside those ranges, or one that is not an integer, is a 400 naming the parameter (DRF's
LimitOffsetPagination would silently fall back to the default).
"""

from rest_framework.pagination import LimitOffsetPagination

from memsite.api.specs import integer, parameters, validate

DEFAULT_LIMIT = 50
MAX_LIMIT = 500
MAX_OFFSET = 1_000_000
PAGE = (integer("limit", DEFAULT_LIMIT, 1, MAX_LIMIT), integer("offset", 0, 0, MAX_OFFSET))


class Pagination(LimitOffsetPagination):
    default_limit = DEFAULT_LIMIT
    max_limit = MAX_LIMIT

    def get_limit(self, request):
        return validate(PAGE, request.query_params)["limit"]

    def get_offset(self, request):
        return validate(PAGE, request.query_params)["offset"]

    def get_schema_operation_parameters(self, view):
        found = super().get_schema_operation_parameters(view)
        for parameter, field in zip(found, PAGE, strict=True):
            parameter["schema"] = dict(field.schema)
        return found

    @staticmethod
    def parameters():
        """The two query parameters, for views that page by hand (`page`)."""
        return parameters(PAGE)

    def page(self, queryset, params):
        """One page of `queryset` for a view that renders its own body, from its query parameters
        (a QueryDict); sets `limit`, `offset` and `count` as paginate_queryset does."""
        page = validate(PAGE, params)
        self.limit, self.offset = page["limit"], page["offset"]
        self.count = queryset.count()
        return list(queryset[self.offset : self.offset + self.limit])
