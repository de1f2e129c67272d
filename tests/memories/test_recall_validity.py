"""Recall answers with what is true: superseded memories rank below their replacements, `valid_at`
answers with what held then, `include_superseded=false` leaves them out."""

import pytest

from memories.models import Memory
from tests.memories.conftest import recall

OLDER = "Ines lives in Ghent, where she rents a flat near the station."
NEWER = "Ines has moved to Antwerp."


@pytest.fixture
def moved(alice_client):
    """An older memory that matches "Where does Ines live?" better than the one that replaced it."""
    older = alice_client.post(
        "/memory", {"content": OLDER, "timestamp": "2024-03-01T09:00:00Z"}, format="json"
    )
    newer = alice_client.post(
        "/memory",
        {"content": NEWER, "timestamp": "2024-05-01T09:00:00Z", "supersedes": [older.json()["memory_id"]]},
        format="json",
    )
    return Memory.objects.get(pk=older.json()["memory_id"]), Memory.objects.get(pk=newer.json()["memory_id"])


def ids(body):
    return [result["id"] for result in body["results"]]


def test_a_superseded_memory_ranks_below_the_memory_that_replaced_it(alice_client, moved):
    older, newer = moved
    body = recall(alice_client, query="Where does Ines live?")
    assert ids(body)[:2] == [str(newer.pk), str(older.pk)]
    shown = body["results"][1]
    assert shown["memory"]["superseded_by"] == str(newer.pk)
    assert shown["score_components"]["superseded"] == 1.0
    assert body["results"][0]["score_components"]["superseded"] == 0.0


def test_without_the_components_the_better_matching_older_memory_ranks_first(alice_client, moved, settings):
    older, newer = moved
    settings.RECALL_WEIGHTS = {**settings.RECALL_WEIGHTS, "superseded": 0.0, "overtaken": 0.0}
    assert ids(recall(alice_client, query="Where does Ines live?"))[:2] == [str(older.pk), str(newer.pk)]


def test_valid_at_answers_with_what_was_true_then(alice_client, moved):
    older, newer = moved
    before = recall(alice_client, query="Where does Ines live?", valid_at="2024-04-30T23:59:59Z")
    assert ids(before) == [str(older.pk)]
    assert before["results"][0]["score_components"]["superseded"] == 0.0
    at_change = recall(alice_client, query="Where does Ines live?", valid_at="2024-05-01T09:00:00Z")
    assert ids(at_change) == [str(newer.pk)]
    assert ids(recall(alice_client, query="Where does Ines live?", valid_at="2024-02-01T00:00:00Z")) == []


def test_include_superseded_false_leaves_superseded_memories_out(alice_client, moved):
    older, newer = moved
    body = recall(alice_client, query="Where does Ines live?", include_superseded="false")
    assert ids(body) == [str(newer.pk)]


@pytest.mark.parametrize("value", ["yesterday", "2024-13-01", "0999-12-31T00:00:00Z"])
def test_an_invalid_valid_at_is_a_400(alice_client, value):
    response = alice_client.get("/recall", {"query": "x", "valid_at": value})
    assert response.status_code == 400
    assert "'valid_at'" in response.json()["message"]
