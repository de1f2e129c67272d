"""What quality reports and consolidation make of superseded memories."""

from datetime import timedelta

from django.utils import timezone

from memories.models import Memory
from quality.consolidation.lifecycle import retention_phase
from quality.models import Inconsistency
from quality.queries import quality_report
from tests.factories import AssociationFactory, MemoryFactory


def superseded_pair(owner, days_ago, **older_fields):
    older = MemoryFactory(owner=owner, days_old=days_ago + 10, **older_fields)
    newer = MemoryFactory(owner=owner, days_old=days_ago)
    AssociationFactory(source=older, target=newer, relation_type="INVALIDATED_BY")
    older.refresh_from_db()
    return older, newer


def test_the_report_counts_open_supersession_proposals_and_recommends_reviewing_them(alice):
    older, newer = MemoryFactory(owner=alice), MemoryFactory(owner=alice)
    Inconsistency.objects.create(
        type="superseded", memory1=older, memory2=newer, severity=0.7, description="Replaced", details={}
    )
    report = quality_report(alice)
    assert report["inconsistency_counts"]["superseded"] == 1
    (advice,) = [item for item in report["recommendations"] if item["code"] == "superseded_found"]
    assert advice["message"].startswith("1 memories look replaced by newer ones")


def test_retention_keeps_superseded_memories_by_default(alice):
    older, _ = superseded_pair(alice, days_ago=400)
    retention_phase()
    older.refresh_from_db()
    assert older.archived_at is None or "superseded" not in older.archive_reason


def test_retention_archives_memories_superseded_longer_than_the_setting(alice, settings):
    settings.SUPERSEDED_RETENTION_DAYS = 30
    long_ago, recent_newer = superseded_pair(alice, days_ago=60)
    recent, _ = superseded_pair(alice, days_ago=5)
    protected, _ = superseded_pair(alice, days_ago=60, tags=["reference"])
    Memory.objects.filter(pk__in=[long_ago.pk, recent.pk, protected.pk]).update(entered_at=timezone.now())
    result = retention_phase()
    for memory in (long_ago, recent, protected):
        memory.refresh_from_db()
    assert result["superseded"] == 1
    assert long_ago.archived_at is not None
    assert long_ago.archive_reason.startswith(f"superseded: replaced by {recent_newer.pk} on ")
    assert recent.archived_at is None
    assert protected.archived_at is None
    assert long_ago.valid_until < timezone.now() - timedelta(days=30)
