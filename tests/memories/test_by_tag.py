import pytest

from tests.memories.conftest import stored_id

pytestmark = pytest.mark.django_db


def test_by_tag_matches_any_tag_case_insensitively(alice_client):
    work = stored_id(alice_client, "Quarterly report is due Friday", tags=["Work"], importance=0.9)
    home = stored_id(alice_client, "Water the plants", tags=["home"], importance=0.2)
    stored_id(alice_client, "Call the dentist", tags=["health"])
    body = alice_client.get("/memory/by-tag", {"tags": "WORK,Home"}).json()
    assert body["count"] == 2
    assert [m["id"] for m in body["memories"]] == [work, home]


def test_by_tag_is_exact_not_prefix(alice_client):
    stored_id(alice_client, "Project kickoff", tags=["project-alpha"])
    assert alice_client.get("/memory/by-tag", {"tags": "project"}).json()["count"] == 0


def test_by_tag_pages_with_limit_and_offset(alice_client):
    for n in range(3):
        stored_id(alice_client, f"tagged note {n}", tags=["t"], importance=n / 10)
    body = alice_client.get("/memory/by-tag", {"tags": "t", "limit": 1, "offset": 1}).json()
    assert [m["content"] for m in body["memories"]] == ["tagged note 1"]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({}, "'tags' query parameter is required"),
        ({"tags": " , "}, "'tags' query parameter is required"),
        ({"tags": "a", "limit": "0"}, "'limit' must be an integer between 1 and 500"),
        ({"tags": "a", "limit": "x"}, "'limit' must be an integer between 1 and 500"),
        ({"tags": "a", "offset": "-1"}, "'offset' must be an integer between 0 and 1000000"),
    ],
)
def test_by_tag_validation(alice_client, params, message):
    response = alice_client.get("/memory/by-tag", params)
    assert response.status_code == 400
    assert response.json()["message"] == message
