import pytest
from django.core.management import call_command
from django.urls import path
from rest_framework.response import Response
from rest_framework.views import APIView

from memsite.models import ApiToken


class WhoAmI(APIView):
    def get(self, request):
        return Response({"username": request.user.username})


urlpatterns = [path("whoami", WhoAmI.as_view())]
pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.memsite.test_auth")]


def test_request_without_token_gets_401_envelope(anon_client):
    response = anon_client.get("/whoami")
    assert response.status_code == 401
    assert response.json() == {
        "status": "error",
        "code": 401,
        "message": "Authentication credentials were not provided.",
    }
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_wrong_token_gets_401_envelope(anon_client, alice):
    ApiToken.issue(alice)
    response = anon_client.get("/whoami", HTTP_AUTHORIZATION="Bearer abc.def")
    assert response.status_code == 401
    assert response.json()["message"] == "Invalid API token"


def test_right_prefix_with_wrong_secret_is_rejected(anon_client, alice):
    _, plain = ApiToken.issue(alice)
    prefix = plain.split(".")[0]
    response = anon_client.get("/whoami", HTTP_AUTHORIZATION=f"Bearer {prefix}.wrong")
    assert response.status_code == 401


def test_bearer_token_authenticates_its_user(anon_client, alice):
    _, plain = ApiToken.issue(alice)
    response = anon_client.get("/whoami", HTTP_AUTHORIZATION=f"Bearer {plain}")
    assert response.status_code == 200
    assert response.json() == {"username": "alice"}


def test_x_api_key_authenticates_its_user(anon_client, bob):
    _, plain = ApiToken.issue(bob)
    response = anon_client.get("/whoami", HTTP_X_API_KEY=plain)
    assert response.json() == {"username": "bob"}


def test_inactive_user_token_is_rejected(anon_client, alice):
    _, plain = ApiToken.issue(alice)
    alice.is_active = False
    alice.save()
    assert anon_client.get("/whoami", HTTP_X_API_KEY=plain).status_code == 401


def test_non_bearer_authorization_scheme_is_rejected(anon_client):
    response = anon_client.get("/whoami", HTTP_AUTHORIZATION="Basic YWxpY2U6cHc=")
    assert response.status_code == 401
    assert "Bearer" in response.json()["message"]


def test_issue_token_creates_the_user_and_prints_a_working_token(anon_client, capsys):
    call_command("issue_token", "carol")
    plain = capsys.readouterr().out.strip()
    response = anon_client.get("/whoami", HTTP_AUTHORIZATION=f"Bearer {plain}")
    assert response.json() == {"username": "carol"}


def test_issue_token_for_an_existing_user_adds_a_second_token(alice, capsys):
    call_command("issue_token", "alice")
    call_command("issue_token", "alice")
    tokens = capsys.readouterr().out.split()
    assert len(set(tokens)) == 2
    assert ApiToken.objects.filter(user=alice).count() == 2
