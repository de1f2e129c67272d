"""A memory that holds the kind of answer a query asks for scores `answer` 1: a time when the query
asks when, a number when it asks how many (or how much, how long, …); every other memory, and every
memory for a query asking neither, scores 0."""

import pytest

from memories.answers import asked_for
from tests.factories import MemoryFactory
from tests.memories.conftest import recall
from tests.startup import start_with

WHEN = "When did we move the servers?"
HOW_MANY = "How many servers did we move?"


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        (WHEN, "time"),
        ("  when is the billing deadline", "time"),
        ("What year did Ana join the team?", "time"),
        ("In which month was the outage?", "time"),
        ("How long ago did we rotate the keys?", "time"),
        (HOW_MANY, "number"),
        ("how much did the licence cost", "number"),
        ("How long is the flight to Lisbon?", "number"),
        ("How often do we back up the database?", "number"),
        ("Where did we move the servers?", None),
        ("Whenever the build fails, who gets paged?", None),
        ("How did the migration go?", None),
        ("servers moved", None),
        ("", None),
    ],
)
def test_a_query_asks_for_a_time_a_number_or_neither(query, kind):
    assert asked_for(query) == kind


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "content", "answer"),
    [
        (WHEN, "We moved the servers last week.", 1.0),
        (WHEN, "Yesterday we moved the servers.", 1.0),
        (WHEN, "We moved the servers three days ago.", 1.0),
        (WHEN, "We moved the servers on Friday.", 1.0),
        (WHEN, "We moved the servers in May.", 1.0),
        (WHEN, "We moved the servers in 2023.", 1.0),
        (WHEN, "We may move the servers.", 0.0),
        (WHEN, "We moved the servers.", 0.0),
        (HOW_MANY, "We moved 12 servers.", 1.0),
        (HOW_MANY, "We moved twelve servers.", 1.0),
        (HOW_MANY, "Someone moved the servers.", 0.0),
        (HOW_MANY, "We moved the servers last week.", 0.0),
        ("Where did we move the servers?", "We moved the servers last week.", 0.0),
    ],
)
def test_a_memory_holding_the_kind_of_answer_asked_for_scores_answer_one(
    alice, alice_client, query, content, answer
):
    memory = MemoryFactory(owner=alice, content=content)
    (result,) = recall(alice_client, query=query, limit=1)["results"]
    assert result["id"] == str(memory.pk)
    assert result["score_components"]["answer"] == answer


@pytest.mark.django_db
def test_a_memory_whose_content_changes_to_name_a_time_answers_when(alice, alice_client):
    memory = MemoryFactory(owner=alice, content="We moved the servers.")
    (result,) = recall(alice_client, query=WHEN, limit=1)["results"]
    assert result["score_components"]["answer"] == 0.0
    response = alice_client.patch(
        f"/memory/{memory.pk}", {"content": "We moved the servers on Friday."}, format="json"
    )
    assert response.status_code == 200
    (result,) = recall(alice_client, query=WHEN, limit=1)["results"]
    assert result["score_components"]["answer"] == 1.0


@pytest.mark.django_db
def test_a_dated_memory_outranks_a_closer_undated_one_when_the_query_asks_when(alice, alice_client, settings):
    undated = MemoryFactory(owner=alice, content="We moved the servers to the new rack.")
    dated = MemoryFactory(owner=alice, content="We moved the servers to the new rack after lunch on Monday.")
    query = "When did we move the servers to the new rack?"
    results = recall(alice_client, query=query, limit=2)["results"]
    assert [r["id"] for r in results] == [str(dated.pk), str(undated.pk)]
    settings.RECALL_WEIGHTS = {**settings.RECALL_WEIGHTS, "answer": 0.0}
    results = recall(alice_client, query=query, limit=2)["results"]
    assert [r["id"] for r in results] == [str(undated.pk), str(dated.pk)]


@pytest.mark.parametrize("value", ["-0.1", "1.5", "often"])
def test_an_answer_weight_out_of_range_stops_start_up_naming_the_variable(value):
    result = start_with(MEMSITE_RECALL_WEIGHT_ANSWER=value)

    assert result.returncode != 0
    assert "MEMSITE_RECALL_WEIGHT_ANSWER" in result.stderr
