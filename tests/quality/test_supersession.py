"""Automatic supersession proposals: on the job after a store, and in detection runs."""

import pytest

from graph import age
from graph.models import Association
from memories.models import Memory
from quality.detection import detect_inconsistencies
from quality.models import Inconsistency
from tests.conftest import at_once, client_for

pytestmark = pytest.mark.django_db(transaction=True)

OLDER = ("Ines lives in Ghent.", "2024-03-02T09:00:00Z")
NEWER = ("Ines has been living in Antwerp since April.", "2024-05-14T09:00:00Z")
BOTH_TRUE = [
    ("Ines plays the cello.", "2024-03-02T09:00:00Z"),
    ("Ines's son plays the drums.", "2024-05-14T09:00:00Z"),
]
UNRELATED = [
    "The dentist appointment is on the 14th at 8:40.",
    "Our team standup is a short video call every morning.",
    "I am reading a book about the history of maps.",
]


@pytest.fixture
def store(alice_client, run_jobs):
    """POST /memory, then run the jobs the store queued (enrichment, then proposals)."""

    def post(content, timestamp=None, client=None):
        body = {"content": content, **({"timestamp": timestamp} if timestamp else {})}
        response = (client or alice_client).post("/memory", body, format="json")
        assert response.status_code == 201, response.content
        run_jobs()
        return Memory.objects.get(pk=response.json()["memory_id"])

    return post


def superseded_findings():
    return list(Inconsistency.objects.filter(type="superseded"))


def test_a_memory_that_replaces_an_older_one_supersedes_it_after_its_jobs(store):
    for text in UNRELATED:
        store(text)
    older = store(*OLDER)
    newer = store(*NEWER)
    older.refresh_from_db()
    assert older.superseded_by_id == newer.pk
    assert older.valid_until == newer.valid_from
    (edge,) = Association.objects.filter(relation_type="INVALIDATED_BY")
    assert (edge.source_id, edge.target_id, edge.origin) == (older.pk, newer.pk, "enrichment")
    (finding,) = superseded_findings()
    assert (finding.memory1_id, finding.memory2_id) == (older.pk, newer.pk)
    assert (finding.status, finding.resolution, finding.resolved_by) == ("resolved", "applied", None)
    assert finding.details["confidence"] >= 0.75
    assert "time_order" in finding.details["signals"]
    assert age.differences() == []


def test_a_replacement_between_conversation_turns_waits_for_a_curator(store):
    older = store(f"Ines: {OLDER[0]}", "2024-05-14T09:00:00Z")
    store("Bart: Oh, I did not know that.", "2024-05-14T09:01:00Z")
    newer = store(f"Ines: {NEWER[0]}", "2024-05-14T09:02:00Z")
    older.refresh_from_db()
    assert older.superseded_by_id is None
    (finding,) = superseded_findings()
    assert (finding.memory1_id, finding.memory2_id, finding.status) == (older.pk, newer.pk, "open")
    assert "conversation_turn" in finding.details["signals"]
    assert older.replacement_proposed == 0


def test_a_note_that_opens_with_a_label_is_no_conversation_turn(store):
    for text in UNRELATED:
        store(text)
    older = store(*OLDER)
    newer = store(f"Ines: {NEWER[0]}", NEWER[1])
    older.refresh_from_db()
    assert older.superseded_by_id == newer.pk
    (finding,) = superseded_findings()
    assert "conversation_turn" not in finding.details["signals"]


def test_two_facts_that_both_hold_are_left_alone(store):
    older, newer = (store(*memory) for memory in BOTH_TRUE)
    older.refresh_from_db()
    assert older.superseded_by_id is None
    assert superseded_findings() == []


def test_a_proposal_below_the_automatic_confidence_waits_for_a_curator(store, settings):
    settings.SUPERSEDE_AUTO_CONFIDENCE = 0.999
    older = store(*OLDER)
    newer = store(*NEWER)
    (finding,) = superseded_findings()
    assert (finding.status, finding.memory1_id, finding.memory2_id) == ("open", older.pk, newer.pk)
    older.refresh_from_db()
    assert older.superseded_by_id is None
    assert older.replacement_proposed == pytest.approx(finding.severity)


def test_a_curator_applies_a_waiting_proposal(store, settings, alice_client):
    settings.SUPERSEDE_AUTO_CONFIDENCE = 0.999
    older = store(*OLDER)
    newer = store(*NEWER)
    (finding,) = superseded_findings()
    response = alice_client.post(
        f"/api/quality/inconsistencies/{finding.pk}/resolve", {"action": "apply"}, format="json"
    )
    assert response.status_code == 200, response.content
    older.refresh_from_db()
    assert older.superseded_by_id == newer.pk
    assert Association.objects.get(relation_type="INVALIDATED_BY").origin == "user"


def test_a_rejected_proposal_is_not_proposed_again_until_a_memory_changes(
    store, settings, alice, alice_client
):
    settings.SUPERSEDE_AUTO_CONFIDENCE = 0.999
    older = store(*OLDER)
    store(*NEWER)
    (finding,) = superseded_findings()
    response = alice_client.post(
        f"/api/quality/inconsistencies/{finding.pk}/resolve", {"action": "keep_both"}, format="json"
    )
    assert response.status_code == 200
    detect_inconsistencies(alice)
    finding.refresh_from_db()
    assert (finding.status, finding.resolution) == ("resolved", "keep_both")
    alice_client.patch(
        f"/memory/{older.pk}", {"content": "Ines lives in Ghent, near the station."}, format="json"
    )
    detect_inconsistencies(alice)
    finding.refresh_from_db()
    assert finding.status == "open"


def test_an_undone_automatic_supersession_stays_undone(store, alice, alice_client):
    older = store(*OLDER)
    store(*NEWER)
    edge = Association.objects.get(relation_type="INVALIDATED_BY")
    assert alice_client.delete(f"/association/{edge.pk}").status_code == 200
    detect_inconsistencies(alice)
    older.refresh_from_db()
    assert older.superseded_by_id is None
    assert not Association.objects.filter(relation_type="INVALIDATED_BY").exists()


def test_detection_finds_what_the_jobs_missed_and_running_it_twice_changes_nothing(alice, alice_client):
    for content, timestamp in (OLDER, NEWER):  # stored without running their jobs
        alice_client.post("/memory", {"content": content, "timestamp": timestamp}, format="json")
    first = detect_inconsistencies(alice)
    assert first.applied == 1
    state = list(Inconsistency.objects.values_list("type", "memory1", "memory2", "status", "severity"))
    second = detect_inconsistencies(alice)
    assert (second.applied, second.created) == (0, 0)
    assert (
        list(Inconsistency.objects.values_list("type", "memory1", "memory2", "status", "severity")) == state
    )


def test_another_owners_memory_is_never_proposed(store, bob):
    store(*OLDER, client=client_for(bob))
    store(*NEWER)
    assert superseded_findings() == []
    assert not Memory.objects.exclude(superseded_by=None).exists()


def test_a_superseded_memory_is_not_also_reported_as_outdated(store, alice):
    older = store("Ines lives in Ghent.", "2023-01-02T09:00:00Z")
    store("Ines has been living in Antwerp since April.", "2023-05-14T09:00:00Z")
    Memory.objects.filter(pk=older.pk).update(provenance_updated_at="2023-01-02T09:00:00Z")
    detect_inconsistencies(alice)
    assert not Inconsistency.objects.filter(type="outdated", memory1=older).exists()


def test_deletes_racing_an_automatic_supersession_leave_tables_and_graph_agreeing(alice, run_jobs):
    client = client_for(alice)
    ids = []
    for content, timestamp in (OLDER, NEWER):
        response = client.post("/memory", {"content": content, "timestamp": timestamp}, format="json")
        ids.append(response.json()["memory_id"])
    codes = at_once(
        [
            lambda: run_jobs() or 200,
            lambda: client_for(alice).delete(f"/memory/{ids[0]}").status_code,
            lambda: (
                client_for(alice).patch(f"/memory/{ids[1]}", {"importance": 0.9}, format="json").status_code
            ),
        ]
    )
    assert set(codes) <= {200, 404, 409}
    assert age.differences() == []
    assert not Association.objects.filter(source_id=ids[0]).exists()
