import pytest

from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


def test_by_tag_matches_any_tag_case_insensitively(alice, alice_client):
    work = str(
        MemoryFactory(owner=alice, content="Quarterly report is due Friday", tags=["work"], importance=0.9).pk
    )
    home = str(MemoryFactory(owner=alice, content="Water the plants", tags=["home"], importance=0.2).pk)
    MemoryFactory(owner=alice, content="Call the dentist", tags=["health"])
    body = alice_client.get("/memory/by-tag", {"tags": "WORK,Home"}).json()
    assert body["count"] == 2
    assert [m["id"] for m in body["memories"]] == [work, home]


def test_by_tag_is_exact_not_prefix(alice, alice_client):
    MemoryFactory(owner=alice, content="Project kickoff", tags=["project-alpha"])
    assert alice_client.get("/memory/by-tag", {"tags": "project"}).json()["count"] == 0


def test_by_tag_pages_with_limit_and_offset(alice, alice_client):
    for n in range(3):
        MemoryFactory(owner=alice, content=f"tagged note {n}", tags=["t"], importance=n / 10)
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


def test_by_tag_reports_its_query_time(alice_client):
    body = alice_client.get("/memory/by-tag", {"tags": "t"}).json()

    assert body["query_time_ms"] >= 0
    assert body["total"] == 0
