"""Of two memories on the same subject that answer a query alike, the newer one that says the value
changed ranks first: the older one scores `overtaken` (the share of its weight it gives up) and
drops just below it. A newer memory that says no change, one written within the hour, conversation
turns and any query asking when or naming a date leave the order alone."""

import pytest

from memories.models import Memory
from tests.factories import MemoryFactory
from tests.memories.conftest import recall
from tests.startup import start_with

OLDER = "My brother Piet lives in Utrecht."
NEWER = "Piet moved to Rotterdam in March and rents a flat near the Maas."
QUESTION = "Which city does Piet live in?"


@pytest.fixture
def weighted(settings):
    settings.RECALL_WEIGHTS = {**settings.RECALL_WEIGHTS, "overtaken": 0.3}
    settings.RECALL_OVERTAKEN_SIMILARITY = 0.4
    return settings


def ranked(client, query=QUESTION):
    results = recall(client, query=query)["results"]
    return [(result["memory"]["content"], result["score_components"]["overtaken"]) for result in results]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("content", "states_change"),
    [
        (NEWER, True),
        ("Piet no longer plays in the band.", True),
        ("The stand-up is now at 9:30.", True),
        ("张伟现在在深圳工作。", True),
        (OLDER, False),
        ("Piet plays bass in a covers band.", False),
        ("张伟在北京工作。", False),
        ("Knowledge is power.", False),
    ],
)
def test_a_memory_states_a_change_when_its_words_say_a_value_changed(alice, content, states_change):
    memory = MemoryFactory(owner=alice, content=content)
    assert Memory.objects.get(pk=memory.pk).states_change is states_change


def test_a_newer_memory_saying_the_value_changed_outranks_the_older_one(alice, alice_client, weighted):
    MemoryFactory(owner=alice, content=OLDER, days_old=90)
    MemoryFactory(owner=alice, content=NEWER, days_old=20)
    MemoryFactory(owner=alice, content="Piet's daughter started school in September.", days_old=60)

    (first, _), (second, overtaken) = ranked(alice_client)[:2]
    assert (first, second) == (NEWER, OLDER)
    assert 0 < overtaken <= 1
    weighted.RECALL_WEIGHTS = {**weighted.RECALL_WEIGHTS, "overtaken": 0.0}
    assert ranked(alice_client)[:2] == [(OLDER, 0.0), (NEWER, 0.0)]


def test_the_older_memory_moves_down_only_just_below_the_newer_one(alice, alice_client, weighted):
    MemoryFactory(owner=alice, content=OLDER, days_old=90)
    MemoryFactory(owner=alice, content=NEWER, days_old=20)

    newer, older = recall(alice_client, query=QUESTION)["results"][:2]
    assert 0 < newer["final_score"] - older["final_score"] < 1e-4


def test_a_newer_memory_saying_no_change_leaves_the_older_one_first(alice, alice_client, weighted):
    MemoryFactory(owner=alice, content=OLDER, days_old=90)
    MemoryFactory(owner=alice, content="Piet has taken up bouldering on Sunday mornings.", days_old=20)

    assert ranked(alice_client)[0] == (OLDER, 0.0)


def test_an_older_memory_that_says_the_change_is_not_overtaken_by_it(alice, alice_client, weighted):
    MemoryFactory(owner=alice, content=NEWER, days_old=90)
    MemoryFactory(owner=alice, content=OLDER, days_old=20)

    assert [overtaken for _, overtaken in ranked(alice_client)] == [0.0, 0.0]


def test_memories_written_within_the_hour_do_not_overtake_each_other(alice, alice_client, weighted):
    MemoryFactory(owner=alice, content=OLDER)
    MemoryFactory(owner=alice, content=NEWER)

    assert ranked(alice_client)[0] == (OLDER, 0.0)


def test_conversation_turns_neither_overtake_nor_are_overtaken(alice, alice_client, weighted):
    MemoryFactory(owner=alice, content=f"Ana: {OLDER}", days_old=90)
    MemoryFactory(owner=alice, content=f"Ana: {NEWER}", days_old=20)
    MemoryFactory(owner=alice, content=OLDER, days_old=80)

    assert all(overtaken == 0.0 for _, overtaken in ranked(alice_client))


@pytest.mark.parametrize("query", ["When did Piet live in Utrecht?", "Where did Piet live on 3 March 2024?"])
def test_a_query_about_a_time_leaves_the_older_memory_where_it_ranks(alice, alice_client, weighted, query):
    MemoryFactory(owner=alice, content=OLDER, days_old=90)
    MemoryFactory(owner=alice, content=NEWER, days_old=20)

    assert all(overtaken == 0.0 for _, overtaken in ranked(alice_client, query))


def test_a_newer_memory_on_another_subject_overtakes_nothing(alice, alice_client, weighted):
    weighted.RECALL_OVERTAKEN_SIMILARITY = 0.9
    MemoryFactory(owner=alice, content=OLDER, days_old=90)
    MemoryFactory(owner=alice, content=NEWER, days_old=20)

    assert ranked(alice_client)[0] == (OLDER, 0.0)


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("MEMSITE_RECALL_WEIGHT_OVERTAKEN", "-0.1"),
        ("MEMSITE_RECALL_WEIGHT_OVERTAKEN", "often"),
        ("MEMSITE_RECALL_OVERTAKEN_SIMILARITY", "1.5"),
    ],
)
def test_an_overtaken_setting_out_of_range_stops_start_up_naming_the_variable(variable, value):
    result = start_with(**{variable: value})

    assert result.returncode != 0
    assert variable in result.stderr
