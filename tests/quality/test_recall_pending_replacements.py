"""A replacement that waits for review lowers the older memory in recalls of what holds now, by
its confidence; the database keeps that in step with the findings, whoever writes them."""

import pytest

from memories.models import Memory
from quality.models import Inconsistency
from tests.conftest import at_once, client_for
from tests.memories.conftest import recall

pytestmark = pytest.mark.django_db(transaction=True)

OLDER = "Ines lives in Ghent, where she rents a flat near the station."
NEWER = "Ines has moved to Antwerp."
QUERY = "Where does Ines live?"


@pytest.fixture
def pair(alice_client, settings):
    """Two memories on where Ines lives, the older matching the question better; the components
    that would rank them without a proposal (overtaken) are off."""
    settings.RECALL_WEIGHTS = {**settings.RECALL_WEIGHTS, "overtaken": 0.0}
    stored = [
        alice_client.post("/memory", {"content": content, "timestamp": timestamp}, format="json")
        for content, timestamp in ((OLDER, "2024-03-01T09:00:00Z"), (NEWER, "2024-05-01T09:00:00Z"))
    ]
    return [Memory.objects.get(pk=response.json()["memory_id"]) for response in stored]


def propose(older, newer, confidence=0.8, signals=("time_order",)):
    return Inconsistency.objects.create(
        type="superseded", memory1=older, memory2=newer, severity=confidence, description="replaced",
        details={"confidence": confidence, "signals": list(signals)},
    )  # fmt: skip


def ranked(alice_client, **params):
    return {result["id"]: result for result in recall(alice_client, query=QUERY, **params)["results"]}


def proposed(memory):
    return Memory.objects.values_list("replacement_proposed", flat=True).get(pk=memory.pk)


def test_without_a_proposal_the_better_matching_older_memory_ranks_first(alice_client, pair):
    older, newer = pair
    assert list(ranked(alice_client))[:2] == [str(older.pk), str(newer.pk)]


def test_a_waiting_proposal_ranks_the_older_memory_below_the_newer_by_its_confidence(alice_client, pair):
    older, newer = pair
    propose(older, newer, confidence=0.8)
    results = ranked(alice_client)
    assert list(results)[:2] == [str(newer.pk), str(older.pk)]
    assert results[str(older.pk)]["score_components"]["superseded"] == pytest.approx(0.8)
    assert results[str(older.pk)]["memory"]["superseded_by"] is None
    assert results[str(newer.pk)]["score_components"]["superseded"] == 0.0


def test_a_dismissed_or_deleted_proposal_no_longer_lowers_the_older_memory(alice_client, pair):
    older, newer = pair
    finding = propose(older, newer)
    response = alice_client.post(
        f"/api/quality/inconsistencies/{finding.pk}/resolve", {"action": "keep_both"}, format="json"
    )
    assert response.status_code == 200, response.content
    assert proposed(older) == 0
    assert list(ranked(alice_client))[:2] == [str(older.pk), str(newer.pk)]
    Inconsistency.objects.filter(pk=finding.pk).update(status="open")
    assert proposed(older) == pytest.approx(0.8)
    Inconsistency.objects.filter(pk=finding.pk).delete()
    assert proposed(older) == 0


def test_the_strongest_of_several_waiting_proposals_counts(alice_client, pair):
    older, newer = pair
    third = Memory.objects.get(
        pk=alice_client.post("/memory", {"content": "Ines lives in Mechelen now."}, format="json").json()[
            "memory_id"
        ]
    )
    propose(older, newer, confidence=0.72)
    strongest = propose(older, third, confidence=0.81)
    assert proposed(older) == pytest.approx(0.81)
    Inconsistency.objects.filter(pk=strongest.pk).update(status="dismissed")
    assert proposed(older) == pytest.approx(0.72)


def test_a_waiting_proposal_between_conversation_turns_lowers_nothing(alice_client, pair):
    older, newer = pair
    propose(older, newer, signals=("time_order", "conversation_turn"))
    assert proposed(older) == 0


def test_a_waiting_proposal_does_not_lower_what_held_at_a_past_moment(alice_client, pair):
    older, newer = pair
    propose(older, newer)
    results = ranked(alice_client, valid_at="2024-06-01T00:00:00Z")
    assert results[str(older.pk)]["score_components"]["superseded"] == 0.0
    assert list(results)[:2] == [str(older.pk), str(newer.pk)]


def test_a_stale_save_of_the_memory_keeps_its_waiting_proposal(pair):
    older, newer = pair
    stale = Memory.objects.get(pk=older.pk)
    propose(older, newer)
    stale.importance = 0.9
    stale.save()
    assert proposed(older) == pytest.approx(0.8)


def test_a_review_racing_edits_and_a_delete_leaves_the_rank_agreeing_with_the_findings(alice, pair):
    older, newer = pair
    finding = propose(older, newer)
    review, edit = f"/api/quality/inconsistencies/{finding.pk}/resolve", f"/memory/{older.pk}"
    codes = at_once(
        [
            lambda: client_for(alice).post(review, {"action": "keep_both"}, format="json").status_code,
            lambda: client_for(alice).patch(edit, {"importance": 0.9}, format="json").status_code,
            lambda: client_for(alice).delete(f"/memory/{newer.pk}").status_code,
        ]
    )
    assert set(codes) <= {200, 404, 409}
    open_findings = Inconsistency.objects.filter(memory1=older, type="superseded", status="open")
    assert proposed(older) == (pytest.approx(0.8) if open_findings.exists() else 0)
