"""The judge of supersession on pairs of texts, with the real model's vectors."""

import numpy as np

from memories import embeddings
from quality.facts import judging, reading


def verdict(older, newer):
    vectors = np.array(embeddings.embed_many([older, newer]))
    frames = np.array(embeddings.embed_many([reading.frame(older), reading.frame(newer)]))
    return judging.judge(
        reading.read(older),
        reading.read(newer),
        float(vectors[0] @ vectors[1]),
        float(frames[0] @ frames[1]),
        later=True,
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


def test_a_nickname_for_the_same_person_is_no_decisive_change():
    found = verdict(
        "Caroline: Hey Mel! Long time no talk. Lots has been going on since then!",
        "Caroline: Hey Melanie, great to hear from you. What's been up since we talked?",
    )
    assert found is None or not set(found.signals) & set(judging.DECISIVE)
