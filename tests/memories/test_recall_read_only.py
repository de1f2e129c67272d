import pytest

from memories import recall, services
from memories.models import Memory
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


def test_a_read_only_recall_returns_the_same_results_and_records_no_access(alice):
    for content in [
        "Deploys go out on Tuesdays",
        "The billing service moved to PostgreSQL",
        "Coffee is free",
    ]:
        MemoryFactory(owner=alice, content=content)
    options = recall.RecallOptions(query="when do we deploy", limit=3)
    read_only = recall.recall(alice, options, record_access=False)["results"]
    assert set(Memory.objects.values_list("access_count", flat=True)) == {0}
    assert not Memory.objects.filter(last_accessed_at__isnull=False).exists()
    counted = recall.recall(alice, options)["results"]
    services.apply_accesses()
    assert [r.memory.pk for r in read_only] == [r.memory.pk for r in counted]
    assert set(Memory.objects.values_list("access_count", flat=True)) == {1}
