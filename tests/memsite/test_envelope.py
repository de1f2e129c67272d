import pytest
from django.urls import path
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from memsite.api.throttling import UserRateThrottle


class EchoSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=5)
    count = serializers.IntegerField(min_value=0)


class Echo(APIView):
    def post(self, request):
        serializer = EchoSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(serializer.validated_data)


class Broken(APIView):
    def get(self, request):
        raise RuntimeError("boom")


class TwoPerMinute(UserRateThrottle):
    scope = "two"

    def limit(self):
        return 2


class Throttled(APIView):
    throttle_classes = [TwoPerMinute]

    def get(self, request):
        return Response({"ok": True})


urlpatterns = [
    path("echo", Echo.as_view()),
    path("broken", Broken.as_view()),
    path("throttled", Throttled.as_view()),
]
pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.memsite.test_envelope")]


def test_wrong_method_gets_405_envelope(alice_client):
    response = alice_client.delete("/echo")
    assert response.status_code == 405
    assert response.json() == {"status": "error", "code": 405, "message": 'Method "DELETE" not allowed.'}


def test_validation_error_is_one_message_naming_the_field(alice_client):
    response = alice_client.post("/echo", {"name": "toolong", "count": 1}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["status"] == "error"
    assert body["code"] == 400
    assert body["message"].startswith("'name': ")


def test_missing_field_is_named(alice_client):
    response = alice_client.post("/echo", {"name": "ab"}, format="json")
    assert response.json()["message"] == "'count': This field is required."


def test_non_json_body_gets_415_envelope(alice_client):
    response = alice_client.post("/echo", "name=ab", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415
    assert response.json()["code"] == 415


def test_malformed_json_gets_400_envelope(alice_client):
    response = alice_client.post("/echo", "{not json", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["status"] == "error"


def test_unhandled_error_gets_500_envelope_without_a_trace(alice_client):
    response = alice_client.get("/broken")
    assert response.status_code == 500
    assert response.json() == {"status": "error", "code": 500, "message": "Internal server error"}


def test_throttled_user_gets_429_with_retry_after(alice_client, bob_client):
    assert alice_client.get("/throttled").status_code == 200  # two a minute: one at once
    response = alice_client.get("/throttled")
    assert response.status_code == 429
    assert response.json()["code"] == 429
    assert int(response["Retry-After"]) > 0
    assert bob_client.get("/throttled").status_code == 200


def test_body_over_the_cap_gets_413_envelope(alice_client, settings):
    settings.MAX_REQUEST_BYTES = 2048
    response = alice_client.post("/echo", {"name": "x" * 5000, "count": 1}, format="json")
    assert response.status_code == 413
    assert response.json() == {
        "status": "error",
        "code": 413,
        "message": "Request body exceeds the maximum of 2048 bytes",
    }


def test_body_under_the_cap_is_served(alice_client, settings):
    settings.MAX_REQUEST_BYTES = 2048
    response = alice_client.post("/echo", {"name": "ab", "count": 1}, format="json")
    assert response.status_code == 200

