"""A memory that only asks a question scores `statement` 0, any other 1: a question matching the
query is evidence for the turns around it more than an answer itself."""

import pytest

from tests.factories import MemoryFactory
from tests.memories.conftest import recall
from tests.startup import start_with

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("content", "statement"),
    [
        ("Where did we park the car?", 0.0),
        ("Where did we park the car?  \n", 0.0),
        ("车停在哪里？", 0.0),
        ("أين السيارة؟", 0.0),
        ("Did you see the car? It is on level 3.", 1.0),
        ("The car is on level 3.", 1.0),
        ("The car is on level 3", 1.0),
        ("?", 0.0),
        ("Is it on level 3? 🙂", 1.0),
        ("Level 3?!", 1.0),
    ],
)
def test_a_memory_ending_with_a_question_mark_is_no_statement(alice, alice_client, content, statement):
    memory = MemoryFactory(owner=alice, content=content)
    (result,) = recall(alice_client, query=content, limit=1)["results"]
    assert result["id"] == str(memory.pk)
    assert result["score_components"]["statement"] == statement


def test_a_statement_outranks_the_same_words_asked_as_a_question(alice, alice_client, settings):
    asked = MemoryFactory(owner=alice, content="Is the car parked in the garage on level 3?")
    stated = MemoryFactory(owner=alice, content="Yes, the car is parked in the garage on level 3.")
    results = recall(alice_client, query="where is the car parked", limit=2)["results"]
    assert [r["id"] for r in results] == [str(stated.pk), str(asked.pk)]
    settings.RECALL_WEIGHTS = {**settings.RECALL_WEIGHTS, "statement": 0.0}
    results = recall(alice_client, query="where is the car parked", limit=2)["results"]
    assert [r["id"] for r in results] == [str(asked.pk), str(stated.pk)]


@pytest.mark.parametrize("value", ["-0.1", "1.5", "often"])
def test_a_statement_weight_out_of_range_stops_start_up_naming_the_variable(value):
    result = start_with(MEMSITE_RECALL_WEIGHT_STATEMENT=value)

    assert result.returncode != 0
    assert "MEMSITE_RECALL_WEIGHT_STATEMENT" in result.stderr
