from datetime import timedelta

import pytest
from django.utils import timezone

from memories.services import archive_memory
from quality.detection import STALE_RESOLUTION, detect_inconsistencies
from quality.models import Inconsistency
from tests.factories import AssociationFactory, MemoryFactory

pytestmark = pytest.mark.django_db


def yesterday():
    return timezone.now() - timedelta(days=1)


def pairs(type_):
    return [{f.memory1_id, f.memory2_id} for f in Inconsistency.objects.filter(type=type_, status="open")]


def test_incremental_detection_searches_only_from_memories_stored_since(alice):
    online = MemoryFactory(owner=alice, content="The user is online", days_old=10)
    MemoryFactory(owner=alice, content="The printer is broken", days_old=10)
    MemoryFactory(owner=alice, content="The printer is not broken", days_old=10)
    offline = MemoryFactory(owner=alice, content="The user is not online")
    result = detect_inconsistencies(alice, changed_since=yesterday())
    assert result.scanned == 1
    assert pairs("contradiction") == [{online.id, offline.id}]


def test_incremental_detection_finds_a_new_copy_of_an_old_memory(alice):
    old = MemoryFactory(owner=alice, content="Lunch is at noon", days_old=10)
    copy = MemoryFactory(owner=alice, content="Lunch is at noon", allow_duplicate=True)
    detect_inconsistencies(alice, changed_since=yesterday())
    assert pairs("duplicate") == [{old.id, copy.id}]


def test_incremental_detection_finds_a_new_contradicts_link_between_old_memories(alice):
    tea = MemoryFactory(owner=alice, content="Alice drinks tea", days_old=10)
    car = MemoryFactory(owner=alice, content="The car is red", days_old=10)
    AssociationFactory(source=car, target=tea, relation_type="CONTRADICTS")
    detect_inconsistencies(alice, changed_since=yesterday())
    assert pairs("contradiction") == [{tea.id, car.id}]


def test_incremental_detection_keeps_findings_of_unchanged_memories_open(alice):
    MemoryFactory(owner=alice, content="The user is online", days_old=10)
    MemoryFactory(owner=alice, content="The user is not online", days_old=10)
    MemoryFactory(owner=alice, content="Old fact", days_old=400)
    detect_inconsistencies(alice)
    result = detect_inconsistencies(alice, changed_since=yesterday())
    assert result.no_longer_detected == 0
    assert Inconsistency.objects.filter(status="open").count() == 2


def test_incremental_detection_resolves_findings_of_a_memory_archived_since(alice):
    MemoryFactory(owner=alice, content="The user is online", days_old=10)
    offline = MemoryFactory(owner=alice, content="The user is not online", days_old=10)
    detect_inconsistencies(alice)
    archive_memory(offline)
    result = detect_inconsistencies(alice, changed_since=yesterday())
    [finding] = Inconsistency.objects.filter(type="contradiction")
    assert result.no_longer_detected == 1
    assert (finding.status, finding.resolution) == ("resolved", STALE_RESOLUTION)


def test_incremental_detection_flags_memories_that_became_outdated_since(alice):
    crossed = MemoryFactory(owner=alice, content="The office is on the third floor", days_old=200)
    MemoryFactory(owner=alice, content="The office had a red door", days_old=400)
    detect_inconsistencies(alice, changed_since=timezone.now() - timedelta(days=30))
    [finding] = Inconsistency.objects.filter(type="outdated")
    assert finding.memory1_id == crossed.id


def test_incremental_detection_checks_only_new_memories_for_low_confidence(alice):
    MemoryFactory(owner=alice, content="The meeting might be on Friday", confidence=0.3, days_old=10)
    fresh = MemoryFactory(owner=alice, content="The bus may come at nine", confidence=0.3)
    detect_inconsistencies(alice, changed_since=yesterday())
    [finding] = Inconsistency.objects.filter(type="low_confidence")
    assert finding.memory1_id == fresh.id


def test_incremental_detection_never_reaches_other_owners(alice, bob):
    MemoryFactory(owner=bob, content="The user is online", days_old=10)
    MemoryFactory(owner=alice, content="The user is not online")
    result = detect_inconsistencies(None, changed_since=yesterday())
    assert result.scanned == 1
    assert pairs("contradiction") == []
