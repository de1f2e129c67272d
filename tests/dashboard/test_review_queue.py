"""The review queue: the owner filter, notes, reclassifying, and bulk actions with a confirmation."""

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from memories.models import Memory
from quality.models import Inconsistency
from quality.services import detect_for_owner
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db

QUEUE = reverse("dashboard:inconsistencies")
BULK = reverse("dashboard:bulk_findings")


@pytest.fixture
def findings(alice, bob):
    """Two low-confidence findings of alice's and one contradiction of bob's."""
    for owner, content in ((alice, "Maybe the cache is warm"), (alice, "Perhaps the build is green")):
        MemoryFactory(owner=owner, content=content, confidence=0.2)
    MemoryFactory(owner=bob, content="The user is online", days_old=3)
    MemoryFactory(owner=bob, content="The user is not online")
    detect_for_owner(alice)
    detect_for_owner(bob)
    return {
        "alice": list(Inconsistency.objects.filter(memory1__owner=alice).order_by("pk")),
        "bob": Inconsistency.objects.get(memory1__owner=bob, type="contradiction"),
    }


def shown(response):
    return {finding.pk for finding in (row["finding"] for row in response.context["rows"])}


def test_the_owner_filter_shows_only_that_owners_findings(curator, findings, alice):
    response = curator.get(QUEUE, {"owner": alice.pk})
    assert shown(response) == {finding.pk for finding in findings["alice"]}
    assert findings["bob"].pk not in shown(curator.get(QUEUE, {"owner": alice.pk, "type": "contradiction"}))


def test_the_owner_filter_stays_in_the_status_and_type_links(curator, findings, alice):
    html = curator.get(QUEUE, {"owner": alice.pk}).content.decode()
    assert f'href="?owner={alice.pk}&amp;status=dismissed"' in html
    assert f'href="?owner={alice.pk}&amp;status=open&amp;type=duplicate"' in html


def test_the_counts_follow_the_owner_filter(curator, findings, bob):
    counts = curator.get(QUEUE, {"owner": bob.pk}).context["counts"]
    assert counts["cells"] == {("contradiction", "open"): 1}


def test_an_unknown_owner_goes_back_to_the_open_findings_with_a_message(curator, findings):
    response = curator.get(QUEUE, {"owner": "999999"})
    assert response.status_code == 302
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        "That filter is not valid: showing the open findings."
    ]


def test_a_bulk_action_asks_first_and_changes_nothing(curator, findings):
    chosen = findings["alice"]
    response = curator.post(BULK, {"ids": [f.pk for f in chosen], "action": "dismiss"})
    assert response.status_code == 200
    assert "Dismiss: 2 findings?" in response.content.decode()
    assert Inconsistency.objects.filter(status="open").count() == 3


def test_a_confirmed_bulk_dismiss_acts_on_exactly_the_selected_findings(curator, findings):
    first, second = findings["alice"]
    response = curator.post(
        BULK, {"ids": [first.pk, findings["bob"].pk], "action": "dismiss", "note": "noise", "confirmed": "on"}
    )
    assert [str(m) for m in get_messages(response.wsgi_request)] == ["Dismiss: 2 of 2 selected findings."]
    statuses = dict(Inconsistency.objects.values_list("pk", "status"))
    assert (statuses[first.pk], statuses[findings["bob"].pk], statuses[second.pk]) == (
        "dismissed",
        "dismissed",
        "open",
    )
    assert Inconsistency.objects.get(pk=first.pk).note == "noise"


def test_a_bulk_archive_archives_single_memory_findings_and_refuses_pairs(curator, findings):
    first, _ = findings["alice"]
    response = curator.post(
        BULK, {"ids": [first.pk, findings["bob"].pk], "action": "archive", "confirmed": "on"}
    )
    said = [str(m) for m in get_messages(response.wsgi_request)]
    assert said[0] == "Archive the memory: 1 of 2 selected findings."
    assert f"#{findings['bob'].pk}: a pair" in said[1]
    assert Memory.objects.get(pk=first.memory1_id).archived_at is not None
    assert Inconsistency.objects.get(pk=findings["bob"].pk).status == "open"


def test_bulk_keep_both_skips_findings_closed_meanwhile(curator, findings):
    bob_finding = findings["bob"]
    curator.post(reverse("dashboard:resolve", args=[bob_finding.pk]), {"action": "dismiss"})
    response = curator.post(BULK, {"ids": [bob_finding.pk], "action": "keep_both"})
    assert "no longer open" in response.content.decode()
    assert response.context["findings"] == []


def test_bulk_ids_that_are_not_numbers_are_refused(curator, findings):
    response = curator.post(BULK, {"ids": ["x", "9" * 40], "action": "dismiss", "confirmed": "on"})
    assert response.status_code == 302
    assert [str(m) for m in get_messages(response.wsgi_request)] == ["Finding ids are whole numbers."]
    assert Inconsistency.objects.filter(status="open").count() == 3


def test_a_huge_bulk_id_is_refused_not_a_server_error(curator, findings):
    response = curator.post(BULK, {"ids": ["9" * 40], "action": "dismiss", "confirmed": "on"})
    assert [str(m) for m in get_messages(response.wsgi_request)] == ["Those are not finding ids."]


def test_a_note_given_on_keep_both_is_stored_and_shown(curator, findings):
    finding = findings["bob"]
    curator.post(
        reverse("dashboard:resolve", args=[finding.pk]), {"action": "keep_both", "note": "different sessions"}
    )
    assert Inconsistency.objects.get(pk=finding.pk).note == "different sessions"
    html = curator.get(QUEUE, {"status": "resolved"}).content.decode()
    assert "<strong>Note:</strong> different sessions" in html
    page = curator.get(reverse("dashboard:memory", args=[finding.memory1_id])).content.decode()
    assert "different sessions" in page


def test_reclassify_then_merge_from_the_dashboard(curator, findings):
    finding = findings["bob"]
    response = curator.post(reverse("dashboard:reclassify", args=[finding.pk]), {"type": "duplicate"})
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        f"Finding #{finding.pk} is now a duplicate (was a contradiction)."
    ]
    curator.post(reverse("dashboard:resolve", args=[finding.pk]), {"action": "merge:1"})
    finding.refresh_from_db()
    assert (finding.status, finding.resolution) == ("resolved", "merge")
    assert Memory.objects.get(pk=finding.memory2_id).archived_at is not None


def test_an_open_contradiction_offers_reclassify_as_duplicate(curator, findings, bob):
    html = curator.get(QUEUE, {"owner": bob.pk}).content.decode()
    assert "Reclassify as duplicate" in html
