import pytest
from procrastinate.contrib.django.models import ProcrastinateJob

from memories.models import Memory, PendingAccess
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_recalls_queue_their_accesses_and_one_job_applies_them_all(alice, alice_client, run_jobs):
    memory = MemoryFactory(owner=alice, content="The spare key is under the blue flowerpot")
    for _ in range(3):
        assert alice_client.get("/recall", {"query": "spare key", "limit": 1}).status_code == 200

    waiting = ProcrastinateJob.objects.filter(task_name="memories.tasks.apply_accesses", status="todo")
    assert waiting.count() == 1
    assert Memory.objects.get(pk=memory.pk).access_count == 0
    run_jobs()
    memory.refresh_from_db()
    assert (memory.access_count, PendingAccess.objects.count()) == (3, 0)
    assert memory.last_accessed_at is not None


def test_accesses_of_a_memory_deleted_meanwhile_are_dropped(alice, alice_client, run_jobs):
    kept = MemoryFactory(owner=alice, content="Bins go out on Thursday night")
    gone = MemoryFactory(owner=alice, content="Bins used to go out on Monday")
    assert alice_client.get("/recall", {"query": "bins"}).json()["count"] == 2
    assert alice_client.delete(f"/memory/{gone.pk}").status_code == 200
    run_jobs()
    kept.refresh_from_db()
    assert (kept.access_count, PendingAccess.objects.count()) == (1, 0)
