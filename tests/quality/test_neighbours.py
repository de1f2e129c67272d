import pytest
from django.db import connection

from graph.models import Association
from quality.consolidation.discovery import discovery_phase
from quality.detection import detect_inconsistencies
from quality.models import Inconsistency
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def planner_prefers_the_index():
    """The vector index search is approximate and may stop before reaching a small owner's
    memories; without sorting, the planner would take it for every memory."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_sort = off")
        cursor.execute("SET LOCAL max_parallel_workers_per_gather = 0")


def hnsw_scans():
    """Scans of the vector index by this transaction so far."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_get_xact_numscans('memory_live_embedding_hnsw'::regclass)")
        return cursor.fetchone()[0]


def test_detection_compares_a_small_owners_memories_exactly_whatever_the_planner_prefers(
    alice, planner_prefers_the_index
):
    online = MemoryFactory(owner=alice, content="The user is online")
    offline = MemoryFactory(owner=alice, content="The user is not online")
    before = hnsw_scans()

    detect_inconsistencies(owner=alice)

    assert hnsw_scans() == before
    (contradiction,) = Inconsistency.objects.filter(type="contradiction")
    assert {contradiction.memory1_id, contradiction.memory2_id} == {online.pk, offline.pk}


def test_discovery_compares_a_small_owners_memories_exactly_whatever_the_planner_prefers(
    alice, settings, planner_prefers_the_index
):
    settings.DISCOVERY_ENABLED = True
    settings.DISCOVERY_MIN_SIMILARITY = 0.5
    settings.DISCOVERY_MAX_SIMILARITY = 0.8
    webhook = MemoryFactory(
        owner=alice,
        content="The Stripe webhook retries confused the refund reconciliation job.",
        tags=["entity:stripe"],
    )
    refunds = MemoryFactory(
        owner=alice,
        content="Refunds issued through Stripe take five business days to reach customers.",
        tags=["entity:stripe"],
    )
    before = hnsw_scans()

    discovery_phase()

    assert hnsw_scans() == before
    (edge,) = Association.objects.filter(relation_type="DISCOVERED")
    assert {edge.source_id, edge.target_id} == {webhook.pk, refunds.pk}
