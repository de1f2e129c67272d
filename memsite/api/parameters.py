"""Query strings that name only what a view reads: a GET with any other parameter is a 400 naming
it, as a body with an unknown field is (`memsite.api.specs.strict`)."""

from memsite.api.pagination import PAGE
from memsite.api.specs import known_names, refuse_unknown


class KnownParameters:
    """A view mixin. A GET may carry the parameters of the view's `query_spec`, of its paginator
    (`limit`, `offset`) and of its filterset; nothing else."""

    query_spec = ()

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if request.method != "GET":
            return
        known = known_names(self.query_spec)
        if getattr(self, "pagination_class", None):
            known |= known_names(PAGE)
        if getattr(self, "filterset_class", None):
            known |= set(self.filterset_class.base_filters)
        refuse_unknown(request.query_params, known)
