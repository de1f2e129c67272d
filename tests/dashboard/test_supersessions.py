"""The review queue of proposed supersessions: older and newer side by side, one-click apply,
keep both and dismiss, filters kept in the address."""

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from memories.models import Memory
from quality.models import Inconsistency
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db

QUEUE = reverse("dashboard:supersessions")


def propose(older, newer, confidence=0.8):
    """A proposal as detection files it: memory1 the older memory, memory2 the newer."""
    return Inconsistency.objects.create(
        type="superseded",
        memory1=older,
        memory2=newer,
        details={"confidence": confidence, "signals": ["same subject", "changed value"]},
        severity=confidence,
        description=f'"{newer.content}" replaces "{older.content}"',
    )


@pytest.fixture
def proposal(alice):
    older = MemoryFactory(owner=alice, content="Ines lives in Ghent", days_old=60)
    newer = MemoryFactory(owner=alice, content="Ines has been living in Antwerp since April", days_old=5)
    return propose(older, newer), older, newer


def resolve(client, finding, action):
    return client.post(reverse("dashboard:resolve", args=[finding.pk]), {"action": action, "next": QUEUE})


def test_the_queue_shows_the_older_memory_left_and_the_newer_right(curator, proposal):
    finding, older, newer = proposal
    response = curator.get(QUEUE)
    (row,) = response.context["rows"]
    assert (row["older"], row["newer"]) == (older, newer)
    html = response.content.decode()
    pair = html[html.index('<div class="pair">') :]
    assert pair.index("Ines lives in Ghent") < pair.index("Ines has been living in Antwerp since April")
    assert 'value="apply"' in html


def test_keep_both_closes_the_proposal_and_links_nothing(curator, proposal):
    finding, older, _ = proposal
    response = resolve(curator, finding, "keep_both")
    assert response["Location"] == QUEUE
    finding.refresh_from_db()
    assert (finding.status, finding.resolution) == ("resolved", "keep_both")
    assert Memory.objects.get(pk=older.pk).superseded_by_id is None
    assert curator.get(QUEUE).context["rows"] == []


def test_dismiss_closes_the_proposal(curator, proposal):
    finding, _, _ = proposal
    resolve(curator, finding, "dismiss")
    finding.refresh_from_db()
    assert finding.status == "dismissed"
    assert [row["finding"] for row in curator.get(QUEUE, {"status": "dismissed"}).context["rows"]] == [
        finding
    ]


def test_the_owner_filter_shows_only_that_owners_proposals(curator, proposal, bob):
    older = MemoryFactory(owner=bob, content="Bob works at Acme", days_old=40)
    newer = MemoryFactory(owner=bob, content="Bob now works at Initech")
    bobs = propose(older, newer)
    rows = curator.get(QUEUE, {"owner": bob.pk}).context["rows"]
    assert [row["finding"] for row in rows] == [bobs]
    html = curator.get(QUEUE, {"owner": bob.pk}).content.decode()
    assert f'href="?owner={bob.pk}&amp;status=resolved"' in html


def test_an_unknown_owner_goes_back_to_the_open_proposals(curator, proposal):
    response = curator.get(QUEUE, {"owner": "x"})
    assert response["Location"] == QUEUE
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        "That filter is not valid: showing the open proposals."
    ]


def test_other_findings_stay_out_of_this_queue(curator, curation_data):
    assert curator.get(QUEUE).context["rows"] == []
    assert b"No proposal to review" in curator.get(QUEUE).content


def test_apply_makes_the_older_memory_superseded_by_the_newer(curator, proposal):
    finding, older, newer = proposal
    response = curator.post(
        reverse("dashboard:resolve", args=[finding.pk]),
        {"action": "apply", "note": "she moved in April", "next": QUEUE},
    )
    assert response["Location"] == QUEUE
    finding.refresh_from_db()
    assert (finding.status, finding.resolution, finding.note) == ("resolved", "apply", "she moved in April")
    assert Memory.objects.get(pk=older.pk).superseded_by_id == newer.pk
    html = curator.get(reverse("dashboard:memory", args=[newer.pk])).content.decode()
    assert "decided by" in html
    assert "she moved in April" in html


def test_the_signals_behind_a_proposal_are_shown(curator, proposal):
    assert "same subject, changed value" in curator.get(QUEUE).content.decode()


def test_apply_is_offered_only_on_superseded_findings(curator, curation_data):
    contradiction = Inconsistency.objects.get(type="contradiction")
    response = resolve(curator, contradiction, "apply")
    contradiction.refresh_from_db()
    assert contradiction.status == "open"
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        "This action does not apply to this finding."
    ]
