"""The judge of supersession on pairs of texts, with the real model's vectors."""

import numpy as np

from memories import embeddings
from quality.facts import judging, reading, relation


def verdict(older, newer, later=True):
    vectors = np.array(embeddings.embed_many([older, newer]))
    frames = np.array(embeddings.embed_many([reading.frame(older), reading.frame(newer)]))
    return judging.judge(
        reading.read(older),
        reading.read(newer),
        float(vectors[0] @ vectors[1]),
        float(frames[0] @ frames[1]),
        later=later,
        relation=relation.relations([(older, newer)])[0],
    )


def test_a_moved_home_is_a_decisive_replacement():
    found = verdict("Ines lives in Ghent.", "Ines moved from Ghent to Antwerp in April.")
    assert found is not None
    assert found.kind == "superseded"
    assert set(found.signals) & set(judging.DECISIVE)


def test_turns_of_two_speakers_never_replace_each_other():
    older = "Maria: I live in Ghent with my two cats."
    assert verdict(older, "Maria: I moved to Antwerp last month, the cats love it.") is not None
    assert verdict(older, "John: I moved to Antwerp last month, the cats love it.") is None


def test_two_chat_turns_on_one_topic_without_a_change_are_no_verdict():
    assert (
        verdict(
            "Melanie: Wow, Caroline! Taking in kids in need - you're so kind.",
            "Melanie: Wow, Caroline, that's awesome. Giving a home to needy kids is a loving way to live.",
        )
        is None
    )


def test_a_nickname_for_the_same_person_is_no_replaced_value():
    found = verdict(
        "Caroline: Hey Mel! Long time no talk. Lots has been going on since then!",
        "Caroline: Hey Melanie, great to hear from you. What's been up since we talked?",
    )
    assert found is None or "value_replaced" not in found.signals


def test_a_new_employer_replaces_the_old_one():
    found = verdict("Tomas works at Siemens in Munich.", "Tomas has been at Bosch since March.")
    assert found is not None
    assert found.kind == "superseded"


def test_the_same_attribute_of_a_relative_replaces_nothing():
    found = verdict("Ines plays the cello.", "Ines's son plays the drums in the school band.")
    assert found is None or found.kind != "superseded"


def test_a_reworded_pending_state_with_a_negation_is_a_duplicate():
    found = verdict(
        "The visa application hasn't been submitted yet.",
        "We still have to submit the visa application.",
        later=False,
    )
    assert found is not None
    assert found.kind == "duplicate"


def test_the_same_words_with_other_punctuation_are_a_duplicate_whatever_their_time():
    for later in (True, False):
        found = verdict(
            "The Atlas release checklist lives in the team wiki under Operations.",
            "The Atlas release checklist lives in the team wiki, under Operations.",
            later=later,
        )
        assert found is not None
        assert (found.kind, found.signals) == ("duplicate", ["same_words"])


def test_the_same_words_with_a_negation_added_are_no_duplicate():
    found = verdict("The user is online.", "The user is not online.", later=False)
    assert found is None or found.kind != "duplicate"


def test_two_values_that_hold_at_once_without_a_negation_are_a_contradiction():
    found = verdict(
        "The warehouse in Leeds has 40 staff.", "The Leeds warehouse employs 65 people.", later=False
    )
    assert found is not None
    assert found.kind == "contradiction"


def test_chinese_is_read_as_pinyin():
    assert relation.model_text("我们搬到苏州了 in May") == "wo men ban dao su zhou le in May"
