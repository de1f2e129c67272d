import json
from pathlib import Path

import pytest

from graph import enrichment, entities
from memories.models import Memory

DATA = Path(__file__).parent.parent / "data"
# 100 turns of the development conversations (every 27th), with the names in each labelled by hand.
SAMPLE = json.loads((DATA / "entity_turns.json").read_text())
# 50 sentences written for this test, not used to build the rules, with their names labelled by hand.
SENTENCES = json.loads((DATA / "entity_sentences.json").read_text())


def scores(known_grows, sample=SAMPLE):
    """Precision and recall of proper_names over the sample; with `known_grows` the names found
    so far count as known, as enrichment sees a conversation stored turn by turn."""
    found = correct = labelled = 0
    known = set()
    for turn in sample:
        got = entities.proper_names(turn["text"], known if known_grows else ())
        known |= got
        found += len(got)
        correct += len(got & set(turn["entities"]))
        labelled += len(turn["entities"])
    return correct / found, correct / labelled


def test_the_hand_labelled_sample_has_100_turns():
    assert len(SAMPLE) == 100
    assert all(turn["text"] and turn["entities"] for turn in SAMPLE)


def test_the_written_sample_has_50_sentences_and_some_without_names():
    assert len(SENTENCES) == 50
    assert sum(1 for sentence in SENTENCES if not sentence["entities"]) >= 5


@pytest.mark.parametrize("sample", [SAMPLE, SENTENCES], ids=["turns", "sentences"])
def test_with_nothing_known_precision_is_at_least_0_95_and_recall_0_8(sample):
    precision, recall = scores(known_grows=False, sample=sample)
    assert precision >= 0.95
    assert recall >= 0.8


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Caroline: Hey Mel!", {"caroline", "mel"}),
        ("Berlin was cold. Priya stayed in.", {"berlin", "priya"}),
        ("O'Brien said hi to Zoë. McKay waved.", {"o-brien", "zoë", "mckay"}),
        ("New York was loud.", {"new-york"}),
        ("Glad Max is home.", {"max"}),
        ("Will you call? Grace under pressure. Reading is fun. Mark it.", set()),
    ],
)
def test_gazetteer_names_count_where_they_open_a_sentence_and_common_words_do_not(text, names):
    assert entities.proper_names(text) == names


@pytest.mark.parametrize(
    "text",
    [
        "We take EUR, USD and GBP at the desk.",
        "The targets for Q1 and Q2 are in.",
        "Fill in the SKU, UPC or EAN field.",
        "Paid in CHF on the train.",
    ],
)
def test_codes_and_currencies_are_not_names(text):
    assert entities.proper_names(text) == set()


def test_a_comma_ends_a_name():
    names = entities.proper_names("I met Anna, Tom and Lee at Café Noir.")
    assert names == {"anna", "tom", "lee", "café-noir"}


def test_entity_recall_grows_once_names_are_known():
    precision, recall = scores(known_grows=True)
    assert precision >= 0.9
    assert recall >= 0.8


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Caroline: Hey Mel! Yeah, the group met on Friday in May.", {"caroline", "mel"}),
        ("Tim: Wow, that's great! I'm reading The Alchemist again.", {"tim", "the-alchemist"}),
        (
            "Tim: For sure! Harry Potter and Game of Thrones are amazing.",
            {"tim", "harry-potter", "game-of-thrones"},
        ),
        ("John: I've always liked Under Armour, thanks!", {"john", "under-armour"}),
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
