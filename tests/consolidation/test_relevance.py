"""Relevance (SPEC section 8, phase 3) for memories with known factors."""

import math
from datetime import timedelta

import pytest
from django.utils import timezone

from memories.models import Memory
from quality.consolidation import relevance_phase
from tests.consolidation.conftest import fresh, hub
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


def test_a_month_old_unaccessed_memory_of_medium_quality_scores_e_to_the_minus_one_times_one_and_a_quarter(
    alice,
):
    memory = MemoryFactory(owner=alice, quality=0.5, days_old=30, importance=0.5)

    counts = relevance_phase()

    memory = fresh(memory)
    assert counts["scored"] == 1
    assert memory.relevance_score == pytest.approx(math.exp(-1) * 1.25, abs=1e-4)
    assert memory.relevance_score == pytest.approx(0.4598, abs=1e-4)
    assert memory.relevance_calculated_at is not None
    factors = memory.metadata["relevance_factors"]
    assert factors["base_importance"] == 1.0
    assert factors["retention_days"] == 30
    assert factors["connection_boost"] == 1.0
    assert factors["access_boost"] == 1.0
    assert factors["quality_multiplier"] == 1.25
    assert factors["decay_factor"] == pytest.approx(math.exp(-1), abs=1e-5)


def test_connections_recent_access_and_type_raise_relevance(alice):
    memory = hub(alice, 3, quality=0.5, memory_type="Decision", importance=0.5)
    Memory.objects.filter(pk=memory.pk).update(last_accessed_at=timezone.now() - timedelta(hours=2))

    relevance_phase()

    factors = fresh(memory).metadata["relevance_factors"]
    assert factors["retention_days"] == 365
    assert factors["connection_count"] == 3
    assert factors["connection_boost"] == pytest.approx(1.3)
    assert factors["access_boost"] == 1.5
    assert fresh(memory).relevance_score == pytest.approx(1 * 1 * 1.3 * 1.5 * 1.25, abs=1e-3)


def test_the_temporary_tag_shortens_retention_to_a_week(alice):
    memory = MemoryFactory(owner=alice, tags=["temporary"], memory_type="Decision")

    relevance_phase()

    assert fresh(memory).metadata["relevance_factors"]["retention_days"] == 7


@pytest.mark.parametrize(("fields"), [{"protected": True}, {"tags": ["important"]}, {"tags": ["permanent"]}])
def test_a_protected_memory_keeps_relevance_of_at_least_one_half(alice, fields):
    memory = MemoryFactory(owner=alice, quality=0.2, days_old=400, importance=0.1, **fields)

    counts = relevance_phase()

    assert counts["protected"] == 1
    assert fresh(memory).relevance_score == pytest.approx(0.5)


def test_archived_memories_are_not_scored(alice):
    memory = MemoryFactory(owner=alice, archived_at=timezone.now())

    assert relevance_phase()["scored"] == 0
    assert fresh(memory).relevance_score is None
