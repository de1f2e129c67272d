"""No single memory's values can fail a consolidation phase: extreme dates, importance, counts.

The API refuses such dates, so the rows get them by ORM update, as old data or SQL might.
"""

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from memories import services
from memories.models import Memory
from quality.consolidation import run_consolidation
from quality.models import ConsolidationRun
from tests.consolidation.conftest import fresh, hub
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db
YEAR_1 = datetime(1, 1, 1, tzinfo=UTC)
YEAR_9999 = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)
DATES = ["created_at", "updated_at", "provenance_updated_at", "entered_at", "last_accessed_at"]
EXTREMES = {
    "year_1": dict.fromkeys(DATES, YEAR_1),
    "year_9999": dict.fromkeys(DATES, YEAR_9999),
    "year_1_temporary": {**dict.fromkeys(DATES, YEAR_1), "tags": ["temporary"], "last_accessed_at": None},
    "importance_0": {"importance": 0.0},
    "importance_1": {"importance": 1.0},
    "importance_subnormal": {"importance": 5e-324},
    "access_count_max": {"access_count": 2147483647},
    "low_quality_since_year_1": {"low_quality_since": YEAR_1, "quality_score": 0.0, "quality_overall": 0.0},
    "boosted_in_year_1": {
        "quality_boost_applied": True,
        "quality_boost_date": YEAR_1,
        "quality_boost_reason": "association_connections",
        "quality_boost_connection_count": 2147483647,
        "quality_boost_factor": 2.0,
        "original_quality_before_boost": 0.0,
    },
}


@pytest.fixture
def every_phase_on(boost_settings):
    boost_settings.BOOST_DECAY_ENABLED = True
    boost_settings.BOOST_BIDIRECTIONAL_ENABLED = True
    boost_settings.QUALITY_AUTO_CLEANUP = True
    return boost_settings


@pytest.mark.parametrize("dry_run", [True, False])
@pytest.mark.parametrize("extreme", EXTREMES)
def test_a_run_succeeds_whatever_one_memorys_values(alice, every_phase_on, extreme, dry_run):
    hub(alice, 5, quality=0.5, neighbour_quality=0.9)
    odd = hub(alice, 5, quality=0.5)
    Memory.objects.filter(pk=odd.pk).update(**EXTREMES[extreme])

    run = run_consolidation(dry_run=dry_run)

    assert ConsolidationRun.objects.get(pk=run.pk).status == "succeeded"
    assert run.phases["evaluate"]["evaluated"] >= 1
    assert fresh(odd).quality_score >= 0


def test_an_ancient_memory_decays_to_zero_relevance_without_an_error(alice):
    ancient = MemoryFactory(owner=alice, importance=1.0)
    Memory.objects.filter(pk=ancient.pk).update(created_at=YEAR_1, updated_at=YEAR_1)

    run_consolidation(dry_run=False)

    ancient = fresh(ancient)
    assert ancient.relevance_score == 0
    assert ancient.metadata["relevance_factors"]["decay_factor"] == 0


def test_a_memory_from_the_future_keeps_full_relevance_and_is_not_archived(alice):
    future = MemoryFactory(owner=alice, importance=0.5, quality=0.1)
    Memory.objects.filter(pk=future.pk).update(**dict.fromkeys(DATES, YEAR_9999))

    run_consolidation(dry_run=False)

    future = fresh(future)
    assert future.metadata["relevance_factors"]["decay_factor"] == 1
    assert future.archived_at is None


def test_recall_of_a_memory_accessed_the_maximum_number_of_times_succeeds(alice, alice_client):
    memory = alice_client.post("/memory", {"content": "Counted to the limit"}, format="json").json()
    Memory.objects.filter(pk=memory["memory_id"]).update(
        access_count=2147483647, last_accessed_at=timezone.now() - timedelta(days=1)
    )

    response = alice_client.get("/recall", {"query": "Counted to the limit"})

    assert response.status_code == 200
    services.apply_accesses()
    assert Memory.objects.get(pk=memory["memory_id"]).access_count == 2147483647
