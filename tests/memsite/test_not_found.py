import pytest

pytestmark = pytest.mark.django_db


def test_unknown_url_gets_404_envelope(alice_client):
    response = alice_client.get("/nowhere")
    assert response.status_code == 404
    assert response.json() == {"status": "error", "code": 404, "message": "Not found"}


def test_unknown_url_without_a_token_is_still_a_404_envelope(anon_client):
    response = anon_client.post("/nowhere/at/all")
    assert response.json()["code"] == 404


def test_health_rejects_post_with_405_envelope(anon_client):
    response = anon_client.post("/health")
    assert response.status_code == 405
    assert response.json()["status"] == "error"
