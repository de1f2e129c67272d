"""How the OpenAPI document describes what every operation can answer besides success.

Each operation lists the error envelope under the statuses it can produce: 400 (bad input),
401 (no or wrong token), 429 (throttled) and 503 (database unreachable) everywhere; 403 where the
operation is for staff; 404 where the path names an object; 413 and 415 where there is a request
body; and what a view declares in `error_statuses` (409 for a conflict, 404 for a missing object
named in the body). A `memory_id` in a path is typed as the UUID it is.
"""

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import IsAdminUser

ERROR = inline_serializer(
    "Error",
    fields={
        "status": serializers.CharField(default="error"),
        "code": serializers.IntegerField(),
        "message": serializers.CharField(),
    },
)
MESSAGES = {
    400: "The request breaks a rule; the message names it.",
    401: "No token, or a wrong one.",
    403: "The operation is for staff.",
    404: "No such object among yours.",
    409: "The change collides with the current state.",
    413: "The body is too large.",
    415: "The body is not JSON.",
    429: "Too many requests; see Retry-After.",
    503: "The database cannot be reached.",
}


UUID_PATH_PARAMETERS = {"memory_id"}
class EnvelopeAutoSchema(AutoSchema):
    def _get_parameters(self):
        parameters = super()._get_parameters()
        for parameter in parameters:
            if parameter["in"] == "path" and parameter["name"] in UUID_PATH_PARAMETERS:
                parameter["schema"] = {"type": "string", "format": "uuid"}
        return parameters

    def _get_request_body(self, direction="request"):
        """A body whose raw schema names required fields is itself required. A view with
        `delete_takes_body` documents its DELETE body too (drf-spectacular shows bodies of POST,
        PUT and PATCH only)."""
        method = self.method
        if method == "DELETE" and getattr(self.view, "delete_takes_body", False):
            self.method = "POST"
        try:
            body = super()._get_request_body(direction)
        finally:
            self.method = method
        if body and any(
            "required" in media["schema"] or "oneOf" in media["schema"] for media in body["content"].values()
        ):
            body["required"] = True
        return body

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for code in self._error_codes():
            responses.setdefault(
                str(code),
                self._get_response_for_code(
                    OpenApiResponse(ERROR, description=MESSAGES[code]), str(code), direction=direction
                ),
            )
        return responses

    def _error_codes(self):
        codes = {400, 401, 429, 503}
        if any(isinstance(permission, IsAdminUser) for permission in self.view.get_permissions()):
            codes.add(403)
        if "{" in self.path:
            codes.add(404)
        if self.method in ("POST", "PUT", "PATCH") or (
            self.method == "DELETE" and getattr(self.view, "delete_takes_body", False)
        ):
            codes |= {413, 415}
        codes.update(getattr(self.view, "error_statuses", {}).get(self.method, ()))
        return sorted(codes)
