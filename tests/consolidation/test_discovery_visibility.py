"""Where DISCOVERED edges show (neighbours, snapshot, boost) and where they do not (recall, relations)."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from graph import age
from graph.models import Association, DiscoveryReview
from graph.services import Link, associate_memories
from memories.models import Memory
from quality.consolidation import boost_phase
from quality.consolidation.discovery import (
    boosts_resting_on_discovery,
    count_boosts_resting_on_discovery,
    discovery_phase,
)
from tests.consolidation.conftest import fresh
from tests.consolidation.test_discovery import REFUNDS, WEBHOOK, discovered
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def edge(alice, settings):
    """A DISCOVERED edge between two payment memories, made by the discovery phase."""
    settings.DISCOVERY_ENABLED = True
    settings.DISCOVERY_MIN_SIMILARITY = 0.5
    settings.DISCOVERY_MAX_SIMILARITY = 0.8
    now = timezone.now()
    webhook = MemoryFactory(
        owner=alice, content=WEBHOOK, tags=["entity:stripe"], created_at=now - timedelta(days=9)
    )
    refunds = MemoryFactory(
        owner=alice, content=REFUNDS, tags=["entity:stripe"], created_at=now - timedelta(days=2)
    )
    discovery_phase()
    found = discovered(webhook, refunds)
    assert found is not None
    return found


def test_graph_neighbors_and_snapshot_show_discovered_edges(alice_client, edge):
    neighbours = alice_client.get(f"/graph/neighbors/{edge.source_id}").json()
    assert [(e["type"], e["target"]) for e in neighbours["edges"]] == [("DISCOVERED", str(edge.target_id))]

    snapshot = alice_client.get("/graph/snapshot").json()
    assert {e["type"] for e in snapshot["edges"]} == {"DISCOVERED"}


def test_graph_relations_hides_the_discovered_type(alice_client, edge):
    types = {relation["type"] for relation in alice_client.get("/graph/relations").json()["relations"]}
    assert "DISCOVERED" not in types
    assert "SIMILAR_TO" in types


def test_recall_expansion_never_follows_a_discovered_edge(alice_client, edge):
    response = alice_client.get(
        "/recall", {"query": "Stripe webhook retries", "limit": 1, "expand_relations": "true"}
    )

    body = response.json()
    assert [result["id"] for result in body["results"]] == [str(Memory.objects.get(content=WEBHOOK).pk)]
    assert body["results"][0]["relations"] == []
    assert body["expansion"]["edges_followed"] == 0


def test_the_boost_counts_discovered_connections(alice, edge, boost_settings):
    boost_settings.BOOST_MIN_CONNECTIONS = 4
    hub = Memory.objects.get(content=WEBHOOK)
    others = [
        MemoryFactory(owner=alice, content=f"Checklist item {n} for the release train") for n in range(3)
    ]
    associate_memories(alice.pk, [Link(hub.pk, other.pk, "RELATES_TO", 0.6) for other in others])

    counts = boost_phase()

    assert counts["applied"] >= 1
    boosted = fresh(hub)
    assert boosted.quality_boost_applied
    assert boosted.quality_boost_connection_count == 4
    assert boosts_resting_on_discovery([hub.pk, others[0].pk]) == {hub.pk}
    assert count_boosts_resting_on_discovery() == 1


def test_the_boost_page_marks_boosts_that_discovered_links_made_possible(
    alice, edge, boost_settings, client, staff
):
    boost_settings.BOOST_MIN_CONNECTIONS = 1
    boost_settings.STORAGES = {
        **boost_settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    boost_phase()
    client.force_login(staff)

    response = client.get(reverse("dashboard:boosts"))

    assert response.status_code == 200
    assert response.context["resting_on_discovery"] == 2
    assert [memory.rests_on_discovery for memory in response.context["page"]] == [True, True]
    assert b"Through discovery" in response.content


def test_promoting_a_discovered_edge_makes_it_authored_and_remembers_the_pair(alice_client, bob_client, edge):
    url = f"/association/{edge.pk}/promote"
    assert bob_client.post(url, {"type": "RELATES_TO"}, format="json").status_code == 404
    assert alice_client.post(url, {"type": "SIMILAR_TO"}, format="json").status_code == 400

    response = alice_client.post(url, {"type": "leads_to", "strength": 0.9}, format="json")

    assert response.status_code == 200
    assert response.json()["relation_type"] == "LEADS_TO"
    promoted = Association.objects.get()
    assert (promoted.relation_type, promoted.origin, promoted.strength) == ("LEADS_TO", "user", 0.9)
    assert DiscoveryReview.objects.get().verdict == "promoted"
    assert age.differences() == []
    again = alice_client.post(url, {"type": "RELATES_TO"}, format="json")
    assert again.status_code == 404
    assert again.json()["status"] == "error"


def test_promoting_a_missing_or_out_of_range_association_is_a_404(alice_client):
    for association_id in [1, 2**63, 10**30]:
        response = alice_client.post(f"/association/{association_id}/promote", {}, format="json")
        assert response.status_code == 404
        assert response.json()["status"] == "error"


def test_the_dashboard_memory_page_shows_the_discovered_neighbour(edge, client, staff, settings):
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    client.force_login(staff)

    response = client.get(reverse("dashboard:memory", args=[edge.source_id]))

    assert response.status_code == 200
    assert [(row["relation_type"], row["memory_id"]) for row in response.context["neighbours"]] == [
        ("DISCOVERED", str(edge.target_id))
    ]
