"""Association discovery: which pairs become DISCOVERED edges, once, for one owner."""

from datetime import timedelta

import pytest
from django.utils import timezone

from graph import age
from graph.models import Association, DiscoveryReview
from graph.services import Link, associate_memories
from memories.models import Memory
from quality.consolidation import run_consolidation
from quality.consolidation.discovery import discovery_phase
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db

# Cosine similarities with the embedding model: refunds/webhook 0.61, pie/anything < 0.1,
# shop/checkout 0.86 (near-duplicates for this phase), webhook/shop 0.54.
WEBHOOK = "The Stripe webhook retries confused the refund reconciliation job."
REFUNDS = "Refunds issued through Stripe take five business days to reach customers."
PIE = "Grandma's apple pie recipe uses cinnamon and nutmeg."
SHOP = "The Stripe integration handles card payments for the online shop."
CHECKOUT = "Customer payments in the online shop go through Stripe."


@pytest.fixture
def discovery(settings):
    settings.DISCOVERY_ENABLED = True
    settings.DISCOVERY_MIN_SIMILARITY = 0.5
    settings.DISCOVERY_MAX_SIMILARITY = 0.8
    settings.DISCOVERY_NEIGHBOURS = 10
    settings.DISCOVERY_TEMPORAL_WINDOW_MINUTES = 60
    settings.DISCOVERY_MAX_PER_MEMORY = 5
    settings.DISCOVERY_MAX_PER_RUN = 1000
    return settings


def days_ago(days):
    return timezone.now() - timedelta(days=days)


def discovered(first, second):
    """The DISCOVERED association between two memories, in either direction (or None)."""
    return (
        Association.objects.filter(
            relation_type="DISCOVERED", source__in=[first, second], target__in=[first, second]
        )
        .exclude(source=first, target=first)
        .exclude(source=second, target=second)
        .first()
    )


def test_related_memories_with_a_shared_entity_get_a_discovered_edge_of_that_kind(alice, discovery):
    webhook = MemoryFactory(owner=alice, content=WEBHOOK, tags=["entity:stripe"], created_at=days_ago(10))
    refunds = MemoryFactory(owner=alice, content=REFUNDS, tags=["entity:stripe"], created_at=days_ago(3))

    counts = discovery_phase()

    edge = discovered(webhook, refunds)
    assert edge is not None
    assert edge.origin == "consolidation"
    assert edge.properties["kind"] == "shared_entity"
    assert 0.5 <= edge.properties["similarity"] < 0.8
    assert (
        edge.strength
        == edge.properties["confidence"]
        == pytest.approx(round(edge.properties["similarity"] * 0.8, 4), abs=1e-4)
    )
    assert counts["created"] == 1
    assert counts["shared_entity"] == 1
    assert age.differences() == []


def test_several_agreeing_signals_are_all_named_in_the_kind(alice, discovery):
    moment = days_ago(2)
    webhook = MemoryFactory(
        owner=alice, content=WEBHOOK, tags=["entity:stripe", "payments"], created_at=moment
    )
    refunds = MemoryFactory(
        owner=alice,
        content=REFUNDS,
        tags=["entity:stripe", "payments"],
        created_at=moment + timedelta(minutes=5),
    )

    discovery_phase()

    assert discovered(webhook, refunds).properties["kind"] == "shared_entity+shared_tag+temporal"


def test_unrelated_near_duplicate_unsupported_and_linked_pairs_get_no_edge(alice, discovery):
    webhook = MemoryFactory(owner=alice, content=WEBHOOK, tags=["entity:stripe"], created_at=days_ago(30))
    pie = MemoryFactory(owner=alice, content=PIE, tags=["entity:stripe"], created_at=days_ago(20))
    shop = MemoryFactory(owner=alice, content=SHOP, tags=["entity:stripe"], created_at=days_ago(10))
    checkout = MemoryFactory(owner=alice, content=CHECKOUT, tags=["entity:stripe"], created_at=days_ago(5))
    refunds = MemoryFactory(owner=alice, content=REFUNDS, tags=["memory"], created_at=days_ago(1))
    associate_memories(alice.pk, [Link(webhook.pk, checkout.pk, "RELATES_TO", 0.7)])

    discovery_phase()

    assert discovered(webhook, pie) is None  # similarity below the band
    assert discovered(shop, checkout) is None  # above the band: a near-duplicate
    assert discovered(webhook, checkout) is None  # already linked
    assert discovered(webhook, refunds) is None  # in the band, but only the memory-type tag agrees
    assert discovered(webhook, shop) is not None
    assert age.differences() == []


def test_a_second_run_adds_nothing_and_links_only_what_is_new(alice, discovery):
    webhook = MemoryFactory(owner=alice, content=WEBHOOK, tags=["entity:stripe"], created_at=days_ago(10))
    MemoryFactory(owner=alice, content=SHOP, tags=["entity:stripe"], created_at=days_ago(8))
    first = run_consolidation(dry_run=False)
    before = set(Association.objects.values_list("source", "target"))
    assert first.phases["discover"]["created"] == 1

    second = run_consolidation(dry_run=False)
    assert second.phases["discover"]["candidates"] == 0
    assert set(Association.objects.values_list("source", "target")) == before

    refunds = MemoryFactory(owner=alice, content=REFUNDS, tags=["entity:stripe"], created_at=days_ago(2))
    third = run_consolidation(dry_run=False)
    assert third.phases["discover"]["candidates"] == 1
    assert discovered(webhook, refunds) is not None
    assert age.differences() == []


def test_a_deleted_discovered_edge_is_remembered_and_never_recreated(alice, alice_client, discovery):
    webhook = MemoryFactory(owner=alice, content=WEBHOOK, tags=["entity:stripe"], created_at=days_ago(10))
    refunds = MemoryFactory(owner=alice, content=REFUNDS, tags=["entity:stripe"], created_at=days_ago(3))
    discovery_phase()
    edge = discovered(webhook, refunds)

    assert alice_client.delete(f"/association/{edge.pk}").status_code == 200
    review = DiscoveryReview.objects.get()
    assert (review.verdict, {review.memory1_id, review.memory2_id}) == ("rejected", {webhook.pk, refunds.pk})

    Memory.objects.filter(pk__in=[webhook.pk, refunds.pk]).update(updated_at=timezone.now())
    counts = discovery_phase()
    assert counts["candidates"] >= 2
    assert discovered(webhook, refunds) is None
    assert age.differences() == []


def test_a_dry_run_reports_the_pairs_and_changes_nothing(alice, discovery):
    webhook = MemoryFactory(owner=alice, content=WEBHOOK, tags=["entity:stripe"], created_at=days_ago(10))
    refunds = MemoryFactory(owner=alice, content=REFUNDS, tags=["entity:stripe"], created_at=days_ago(3))

    run = run_consolidation(dry_run=True)

    counts = run.phases["discover"]
    assert counts["created"] == 1
    assert [(pair["kind"], {pair["source"], pair["target"]}) for pair in counts["pairs"]] == [
        ("shared_entity", {str(webhook.pk), str(refunds.pk)})
    ]
    assert not Association.objects.exists()
    assert age.differences() == []
    assert run_consolidation(dry_run=False).phases["discover"]["candidates"] == 2


def test_discovery_never_links_memories_of_two_owners(alice, bob, discovery):
    MemoryFactory(owner=alice, content=WEBHOOK, tags=["entity:stripe"], created_at=days_ago(10))
    MemoryFactory(owner=bob, content=REFUNDS, tags=["entity:stripe"], created_at=days_ago(10))

    counts = discovery_phase()

    assert counts["candidates"] == 2
    assert counts["in_band"] == 0
    assert not Association.objects.exists()


def test_caps_per_memory_and_per_run_keep_the_strongest_pairs(alice, discovery):
    discovery.DISCOVERY_MAX_PER_MEMORY = 1
    webhook = MemoryFactory(owner=alice, content=WEBHOOK, tags=["entity:stripe"], created_at=days_ago(10))
    MemoryFactory(owner=alice, content=REFUNDS, tags=["entity:stripe"], created_at=days_ago(5))
    MemoryFactory(owner=alice, content=SHOP, tags=["entity:stripe"], created_at=days_ago(1))

    counts = discovery_phase()

    assert counts["agreed"] > counts["created"] == 1
    assert Association.objects.filter(relation_type="DISCOVERED").count() == 1
    Memory.objects.filter(pk=webhook.pk).update(updated_at=timezone.now())
    discovery.DISCOVERY_MAX_PER_MEMORY = 5
    discovery.DISCOVERY_MAX_PER_RUN = 1
    assert discovery_phase()["created"] == 1


def test_a_capped_run_searches_the_oldest_changes_and_the_next_run_goes_on(alice, discovery):
    discovery.DISCOVERY_MAX_SEARCHED = 1
    MemoryFactory(owner=alice, content=PIE)
    webhook = MemoryFactory(owner=alice, content=WEBHOOK, tags=["entity:stripe"])
    refunds = MemoryFactory(owner=alice, content=REFUNDS, tags=["entity:stripe"])

    first = run_consolidation(dry_run=False).phases["discover"]
    second = run_consolidation(dry_run=False).phases["discover"]
    third = run_consolidation(dry_run=False).phases["discover"]
    fourth = run_consolidation(dry_run=False).phases["discover"]

    assert [first["candidates"], second["candidates"], third["candidates"]] == [1, 1, 1]
    assert first["created"] == 0
    assert second["created"] == 1
    assert discovered(webhook, refunds) is not None
    assert "searched_through" in first
    assert "searched_through" not in fourth
    assert fourth["candidates"] == 0
