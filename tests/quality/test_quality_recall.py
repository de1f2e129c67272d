import pytest

from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


def recalled(client, **params):
    response = client.get("/recall", params)
    assert response.status_code == 200, response.json()
    return [result["memory"]["content"] for result in response.json()["results"]]


def test_min_quality_keeps_memories_at_or_above_it(alice, alice_client):
    for score, text in [
        (0.6, "Tea is served at nine"),
        (0.5, "Tea is served at ten"),
        (0.4, "Tea is served at noon"),
    ]:
        MemoryFactory(owner=alice, content=text, quality_score=score, quality_relevance=0.5)
    contents = recalled(alice_client, query="When is tea served?", min_quality=0.5, limit=10)
    assert sorted(contents) == ["Tea is served at nine", "Tea is served at ten"]


def test_rank_by_quality_puts_the_better_memory_first(alice, alice_client):
    for score, text in [
        (0.1, "The user prefers dark mode in the editor"),
        (0.95, "Night themes are what this person picks"),
    ]:
        MemoryFactory(owner=alice, content=text, quality_score=score, quality_relevance=0.5)
    query = "The user prefers dark mode in the editor"
    assert recalled(alice_client, query=query, limit=2)[0] == "The user prefers dark mode in the editor"
    ranked = recalled(alice_client, query=query, limit=2, rank_by_quality="true")
    assert ranked[0] == "Night themes are what this person picks"


def test_min_quality_must_be_a_number(alice_client):
    response = alice_client.get("/recall", {"query": "tea", "min_quality": "high"})
    assert response.status_code == 400
    assert response.json()["status"] == "error"
