"""Quality-based retention, auto-cleanup and snapshots (SPEC section 8, phases 4 and 5)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memories.models import Memory
from quality.consolidation import cleanup_phase, retention_phase, retention_threshold_days
from quality.models import QualitySnapshot
from tests.consolidation.conftest import fresh
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("quality", "days"), [(0.8, 365), (0.7, 365), (0.5, 180), (0.3, 66), (0.0, 30), (0.49, 88.8)]
)
def test_retention_threshold_follows_quality(quality, days):
    assert retention_threshold_days(quality) == pytest.approx(days)


def test_thresholds_follow_the_retention_settings(settings, db):
    settings.RETENTION_HIGH_DAYS = 500
    settings.RETENTION_LOW_MIN_DAYS = 10
    settings.RETENTION_LOW_MAX_DAYS = 20

    assert retention_threshold_days(0.9) == 500
    assert retention_threshold_days(0.25) == pytest.approx(15)


def test_a_memory_inactive_longer_than_its_threshold_is_archived_softly(alice):
    stale = MemoryFactory(owner=alice, quality=0.3, days_old=67)
    kept = MemoryFactory(owner=alice, quality=0.3, days_old=65)

    counts = retention_phase()

    stale, kept = fresh(stale), fresh(kept)
    assert counts["archived"] == 1
    assert stale.archived_at is not None
    assert stale.archive_reason == (
        "quality_retention: inactive 67 days, over the 66-day threshold for quality 0.300"
    )
    assert kept.archived_at is None
    assert Memory.objects.filter(pk=stale.pk).exists()


def test_inactivity_counts_from_the_last_access(alice):
    memory = MemoryFactory(owner=alice, quality=0.3, days_old=400)
    Memory.objects.filter(pk=memory.pk).update(last_accessed_at=timezone.now() - timedelta(days=10))

    retention_phase()

    assert fresh(memory).archived_at is None


def test_a_high_quality_memory_is_kept_for_a_year(alice):
    young = MemoryFactory(owner=alice, quality=0.8, days_old=300)
    old = MemoryFactory(owner=alice, quality=0.8, days_old=366)

    retention_phase()

    assert fresh(young).archived_at is None
    assert fresh(old).archived_at is not None


@pytest.mark.parametrize(
    "fields",
    [{"protected": True}] + [{"tags": [tag]} for tag in ("critical", "important", "reference", "permanent")],
)
def test_a_protected_memory_is_never_archived(alice, fields):
    memory = MemoryFactory(owner=alice, quality=0.0, days_old=3000, **fields)

    counts = retention_phase()

    assert counts["archived"] == 0
    assert fresh(memory).archived_at is None


def _low_since(memory, days):
    Memory.objects.filter(pk=memory.pk).update(low_quality_since=timezone.now() - timedelta(days=days))


def test_auto_cleanup_archives_memories_poor_for_longer_than_the_grace_period(alice, settings):
    settings.QUALITY_AUTO_CLEANUP = True
    settings.QUALITY_CLEANUP_GRACE_DAYS = 30
    poor, recent, protected = MemoryFactory.create_batch(3, owner=alice, quality=0.2)
    Memory.objects.filter(pk=protected.pk).update(protected=True)
    _low_since(poor, 31)
    _low_since(recent, 29)
    _low_since(protected, 100)

    counts = cleanup_phase()

    assert counts["archived"] == 1
    assert fresh(poor).archive_reason.startswith("quality_cleanup: quality 0.200 below 0.3 since ")
    assert fresh(recent).archived_at is None
    assert fresh(protected).archived_at is None


def test_auto_cleanup_is_off_by_default(alice, settings):
    settings.QUALITY_AUTO_CLEANUP = False
    poor = MemoryFactory(owner=alice, quality=0.2)
    _low_since(poor, 365)

    assert cleanup_phase()["archived"] == 0
    assert fresh(poor).archived_at is None


def test_a_snapshot_is_taken_per_owner(alice, bob):
    MemoryFactory.create_batch(2, owner=alice, quality=0.8)
    MemoryFactory(owner=alice, quality=0.6)
    MemoryFactory(owner=alice, quality=0.2, archived_at=timezone.now())
    MemoryFactory(owner=bob, quality=0.4)

    counts = cleanup_phase()

    assert counts["snapshots"] == 2
    snapshot = QualitySnapshot.objects.get(owner=alice)
    assert (snapshot.total, snapshot.high_count, snapshot.medium_count, snapshot.low_count) == (3, 2, 1, 0)
    assert snapshot.average_quality == pytest.approx(2.2 / 3)
    assert set(snapshot.dimensions) == {"accuracy", "completeness", "consistency", "timeliness", "relevance"}
    assert QualitySnapshot.objects.get(owner=bob).low_count == 1
