import json
from pathlib import Path

import pytest

from graph import enrichment, entities
from memories.models import Memory

# 100 turns of the development conversations (every 27th), with the names in each labelled by hand.
SAMPLE = json.loads((Path(__file__).parent.parent / "data" / "entity_turns.json").read_text())


def scores(known_grows):
    """Precision and recall of proper_names over the sample; with `known_grows` the names found
    so far count as known, as enrichment sees a conversation stored turn by turn."""
    found = correct = labelled = 0
    known = set()
    for turn in SAMPLE:
        got = entities.proper_names(turn["text"], known if known_grows else ())
        known |= got
        found += len(got)
        correct += len(got & set(turn["entities"]))
        labelled += len(turn["entities"])
    return correct / found, correct / labelled


def test_the_hand_labelled_sample_has_100_turns():
    assert len(SAMPLE) == 100
    assert all(turn["text"] and turn["entities"] for turn in SAMPLE)


def test_entity_precision_on_the_labelled_turns_is_at_least_0_9():
    precision, recall = scores(known_grows=False)
    assert precision >= 0.9
    assert recall >= 0.3


def test_entity_recall_grows_once_names_are_known():
    precision, recall = scores(known_grows=True)
    assert precision >= 0.9
    assert recall >= 0.8


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Caroline: Hey Mel! Yeah, the group met on Friday in May.", {"mel"}),
        ("Tim: Wow, that's great! I'm reading The Alchemist again.", {"the-alchemist"}),
        ("Tim: For sure! Harry Potter and Game of Thrones are amazing.", {"harry-potter", "game-of-thrones"}),
        ("John: I've always liked Under Armour, thanks!", {"under-armour"}),
        ("Okay. Thanks! Wow. Hello there, Sunday is fine.", set()),
    ],
)
def test_stop_words_interjections_and_calendar_words_are_not_names(text, names):
    assert entities.proper_names(text) == names


def test_one_slug_for_storing_and_for_lookup():
    assert entities.proper_names("Yesterday we visited O'Brien's bakery.") == {"o-brien"}
    assert "entity:o-brien" in entities.query_tags("What does O'Brien bake?")
    assert "entity:o-brien" in entities.query_tags("Which bakery is o'brien's?")


@pytest.mark.django_db
def test_an_entity_tag_stored_by_enrichment_is_found_by_expand_entities(alice_client):
    stored = alice_client.post(
        "/memory", {"content": "Yesterday we visited O'Brien's bakery downtown."}, format="json"
    )
    enrichment.enrich([stored.json()["memory_id"]])
    memory = Memory.objects.get(pk=stored.json()["memory_id"])
    assert "entity:o-brien" in memory.tags
    for text in ["The kettle is broken again", "Sprint review moved to the afternoon"]:
        alice_client.post("/memory", {"content": text}, format="json")
    response = alice_client.get(
        "/recall", {"query": "Where is O'Brien?", "expand_entities": "true", "limit": 1}
    ).json()
    assert response["expansion"]["entity_count"] + response["expansion"]["seed_count"] >= 1
    assert str(memory.pk) in {result["id"] for result in response["results"]}
