"""A memory's versions timeline on the dashboard and in the admin: every memory it replaced and
every memory that replaced it, with dates and who or what decided."""

import pytest
from django.urls import reverse

from dashboard.versions import MAX_VERSIONS
from graph.models import Origin
from graph.services import Link, associate_memories
from quality.models import Inconsistency
from quality.services import detect_for_owner, resolve_inconsistency
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def chain(alice):
    """Ghent (60 days old) replaced by Antwerp (30 days), replaced by Brussels (today)."""
    ghent = MemoryFactory(owner=alice, content="Ines lives in Ghent", days_old=60)
    antwerp = MemoryFactory(owner=alice, content="Ines has been living in Antwerp since April", days_old=30)
    brussels = MemoryFactory(owner=alice, content="Ines moved to Brussels this week")
    associate_memories(alice.pk, [Link(ghent.pk, antwerp.pk, "INVALIDATED_BY", 0.9, {"reason": "she moved"})])
    associate_memories(
        alice.pk, [Link(antwerp.pk, brussels.pk, "INVALIDATED_BY", 0.9, {})], Origin.ENRICHMENT
    )
    return ghent, antwerp, brussels


def test_the_middle_version_shows_the_whole_chain_oldest_first(curator, chain):
    ghent, antwerp, brussels = chain
    versions = curator.get(reverse("dashboard:memory", args=[antwerp.pk])).context["versions"]
    assert [row["memory"].pk for row in versions] == [ghent.pk, antwerp.pk, brussels.pk]
    assert [row["current"] for row in versions] == [False, True, False]
    assert versions[0]["ended"]["replaced_by"] == antwerp.pk
    assert versions[2]["ended"] is None


def test_the_timeline_says_who_decided_and_why(curator, chain):
    ghent, _, _ = chain
    html = curator.get(reverse("dashboard:memory", args=[ghent.pk])).content.decode()
    assert "decided by the client (explicit link) · “she moved”" in html
    assert "decided by automatic detection" in html
    assert "<strong>now</strong>" in html


def test_a_reviewers_decision_names_the_reviewer(curator, alice, staff):
    older = MemoryFactory(owner=alice, content="The user is online", days_old=3)
    newer = MemoryFactory(owner=alice, content="The user is not online")
    detect_for_owner(alice)
    finding = Inconsistency.objects.get(type="contradiction")
    resolve_inconsistency(finding, "link_invalidated_by", staff, memory_id=older.pk)
    html = curator.get(reverse("dashboard:memory", args=[newer.pk])).content.decode()
    assert f"decided by {staff.username} (review)" in html


def test_a_memory_without_versions_says_so(curator, alice):
    memory = MemoryFactory(owner=alice, content="A fact on its own")
    html = curator.get(reverse("dashboard:memory", args=[memory.pk])).content.decode()
    assert "This memory has not replaced another memory and nothing has replaced it." in html


def test_the_admin_memory_page_shows_the_same_timeline(admin_client, chain):
    ghent, _, brussels = chain
    html = admin_client.get(reverse("admin:memories_memory_change", args=[brussels.pk])).content.decode()
    assert 'id="memory-versions"' in html
    assert "Ines lives in Ghent" in html


def test_a_memory_that_replaced_many_shows_the_first_fifty_versions(curator, alice):
    newest = MemoryFactory(owner=alice, content="The team now meets on Thursdays")
    older = MemoryFactory.create_batch(MAX_VERSIONS + 10, owner=alice, days_old=30)
    associate_memories(alice.pk, [Link(memory.pk, newest.pk, "INVALIDATED_BY", 0.9, {}) for memory in older])
    versions = curator.get(reverse("dashboard:memory", args=[newest.pk])).context["versions"]
    assert len(versions) == MAX_VERSIONS
    assert newest.pk in {row["memory"].pk for row in versions}
