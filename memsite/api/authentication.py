from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from memsite.models import ApiToken


class ApiTokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Bearer <token>` or `X-API-Key: <token>`."""

    def authenticate(self, request):
        plain = request.headers.get("X-API-Key", "").strip()
        header = request.headers.get("Authorization", "")
        if not plain and header:
            scheme, _, value = header.partition(" ")
            if scheme.lower() != "bearer" or not value.strip():
                raise exceptions.AuthenticationFailed("Authorization header must be 'Bearer <token>'")
            plain = value.strip()
        if not plain:
            return None
        token = ApiToken.find(plain)
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid API token")
        now = timezone.now()
        if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return token.user, token

    def authenticate_header(self, request):
        return 'Bearer realm="memsite"'


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = ApiTokenAuthentication
    name = "ApiToken"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer", "description": "Also accepted as X-API-Key."}
