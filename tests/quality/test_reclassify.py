"""Reclassifying a finding (contradiction ↔ duplicate) and the reviewer's note on decisions."""

from functools import partial

import pytest

from memories.models import Memory
from quality.models import Inconsistency
from quality.services import detect_for_owner
from tests.conftest import at_once, client_for
from tests.factories import MemoryFactory
from tests.quality.conftest import assert_envelope

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair(alice):
    first = MemoryFactory(owner=alice, content="The user is online", days_old=3)
    second = MemoryFactory(owner=alice, content="The user is not online")
    detect_for_owner(alice)
    return Inconsistency.objects.get(type="contradiction"), first, second


def reclassify(client, finding, body):
    return client.post(f"/api/quality/inconsistencies/{finding.pk}/reclassify", body, format="json")


def test_a_contradiction_reclassified_as_a_duplicate_can_then_be_merged(alice_client, pair):
    finding, first, second = pair
    response = reclassify(alice_client, finding, {"type": "duplicate"})
    assert response.status_code == 200, response.content
    assert (response.json()["type"], response.json()["reclassified_from"]) == ("duplicate", "contradiction")
    merged = alice_client.post(
        f"/api/quality/inconsistencies/{finding.pk}/resolve",
        {"action": "merge", "memory_id": str(first.pk)},
        format="json",
    )
    assert merged.status_code == 200, merged.content
    assert merged.json()["resolution"] == "merge"
    assert Memory.objects.get(pk=second.pk).archived_at is not None


def test_detection_leaves_a_reclassified_finding_open_and_files_no_new_contradiction(
    alice, alice_client, pair
):
    finding, _, _ = pair
    reclassify(alice_client, finding, {"type": "duplicate"})
    detect_for_owner(alice)
    finding.refresh_from_db()
    assert (finding.type, finding.status) == ("duplicate", "open")
    rows = Inconsistency.objects.filter(memory1=finding.memory1, memory2=finding.memory2)
    assert sorted(rows.values_list("type", "status")) == [
        ("contradiction", "dismissed"),
        ("duplicate", "open"),
    ]


def test_a_closed_finding_cannot_be_reclassified(alice_client, pair):
    finding, _, _ = pair
    alice_client.post(f"/api/quality/inconsistencies/{finding.pk}/dismiss")
    assert_envelope(
        reclassify(alice_client, finding, {"type": "duplicate"}), 409, "Inconsistency is already dismissed"
    )


def test_reclassifying_to_an_unknown_type_is_a_400_and_changes_nothing(alice_client, pair):
    finding, _, _ = pair
    assert_envelope(reclassify(alice_client, finding, {"type": "outdated"}), 400)
    assert_envelope(reclassify(alice_client, finding, {}), 400)
    finding.refresh_from_db()
    assert (finding.type, finding.reclassified_from) == ("contradiction", "")


def test_reclassifying_to_the_type_it_has_is_a_409(alice_client, pair):
    finding, _, _ = pair
    assert_envelope(reclassify(alice_client, finding, {"type": "contradiction"}), 409)


def test_another_users_finding_answers_404(bob_client, pair):
    finding, _, _ = pair
    assert_envelope(reclassify(bob_client, finding, {"type": "duplicate"}), 404)
    finding.refresh_from_db()
    assert finding.type == "contradiction"


def test_a_keep_both_reason_is_kept_as_the_findings_note(alice_client, pair):
    finding, _, _ = pair
    response = alice_client.post(
        f"/api/quality/inconsistencies/{finding.pk}/resolve",
        {"action": "keep_both", "reason": "online and offline at different times"},
        format="json",
    )
    assert response.json()["note"] == "online and offline at different times"
    again = alice_client.get(f"/api/quality/inconsistencies/{finding.pk}").json()
    assert again["note"] == "online and offline at different times"


@pytest.mark.django_db(transaction=True)
def test_two_reviewers_reclassifying_at_once_change_it_once(alice):
    MemoryFactory(owner=alice, content="The user is online", days_old=3)
    MemoryFactory(owner=alice, content="The user is not online")
    detect_for_owner(alice)
    finding = Inconsistency.objects.get(type="contradiction")
    clients = [client_for(alice), client_for(alice)]
    answers = at_once([partial(reclassify, client, finding, {"type": "duplicate"}) for client in clients])
    assert sorted(answer.status_code for answer in answers) == [200, 409]
    rows = Inconsistency.objects.filter(memory1=finding.memory1, memory2=finding.memory2)
    assert sorted(rows.values_list("type", "status")) == [
        ("contradiction", "dismissed"),
        ("duplicate", "open"),
    ]


@pytest.mark.django_db(transaction=True)
def test_reclassifying_while_another_reviewer_resolves_gives_one_decision(alice):
    MemoryFactory(owner=alice, content="The user is online", days_old=3)
    MemoryFactory(owner=alice, content="The user is not online")
    detect_for_owner(alice)
    finding = Inconsistency.objects.get(type="contradiction")
    first, second = client_for(alice), client_for(alice)
    answers = at_once(
        [
            partial(reclassify, first, finding, {"type": "duplicate"}),
            partial(
                second.post,
                f"/api/quality/inconsistencies/{finding.pk}/resolve",
                {"action": "keep_both"},
                format="json",
            ),
        ]
    )
    codes = [answer.status_code for answer in answers]
    assert codes in ([200, 200], [409, 200]), codes
    finding.refresh_from_db()
    assert (finding.status, finding.resolution) == ("resolved", "keep_both")
    assert finding.type == ("duplicate" if codes[0] == 200 else "contradiction")
