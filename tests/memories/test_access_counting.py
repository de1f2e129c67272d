from functools import partial

import pytest
from django.db import connection, transaction
from django.utils import timezone
from procrastinate.contrib.django.models import ProcrastinateJob

from memories.models import Memory, PendingAccess
from memories.services import record_access
from tests.conftest import at_once, client_for
from tests.factories import MemoryFactory
from tests.startup import start_with

pytestmark = pytest.mark.django_db(transaction=True)


def test_recalls_queue_their_accesses_and_one_job_applies_them_all(alice, alice_client, run_jobs, settings):
    settings.ACCESS_APPLY_DELAY_SECONDS = 0
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


def test_accesses_of_a_memory_deleted_meanwhile_are_dropped(alice, alice_client, run_jobs, settings):
    settings.ACCESS_APPLY_DELAY_SECONDS = 0
    kept = MemoryFactory(owner=alice, content="Bins go out on Thursday night")
    gone = MemoryFactory(owner=alice, content="Bins used to go out on Monday")
    assert alice_client.get("/recall", {"query": "bins"}).json()["count"] == 2
    assert alice_client.delete(f"/memory/{gone.pk}").status_code == 200
    run_jobs()
    kept.refresh_from_db()
    assert (kept.access_count, PendingAccess.objects.count()) == (1, 0)


def test_recalls_of_one_window_share_one_job_that_starts_after_the_delay(alice, alice_client, settings):
    settings.ACCESS_APPLY_DELAY_SECONDS = 30
    MemoryFactory(owner=alice, content="The boiler is serviced every October")
    before = timezone.now()
    for _ in range(4):
        assert alice_client.get("/recall", {"query": "boiler"}).status_code == 200

    (job,) = ProcrastinateJob.objects.filter(task_name="memories.tasks.apply_accesses")
    assert job.status == "todo"
    assert 29 <= (job.scheduled_at - before).total_seconds() <= 40
    assert PendingAccess.objects.count() == 4


def test_an_access_delay_beyond_an_hour_stops_start_up_naming_the_variable():
    result = start_with(MEMSITE_ACCESS_APPLY_DELAY_SECONDS="3601")

    assert result.returncode != 0
    assert "MEMSITE_ACCESS_APPLY_DELAY_SECONDS must be between 0 and 3600" in result.stderr


def test_racing_recalls_all_answer_and_queue_one_job_between_them(alice):
    MemoryFactory(owner=alice, content="The gate code changed to 4711 in March")
    clients = [client_for(alice) for _ in range(8)]
    responses = at_once([partial(client.get, "/recall", {"query": "gate code"}) for client in clients])

    assert [response.status_code for response in responses] == [200] * 8
    assert ProcrastinateJob.objects.filter(task_name="memories.tasks.apply_accesses").count() == 1
    assert PendingAccess.objects.count() == 8


def test_queueing_accesses_does_not_wait_for_the_disk_and_leaves_later_commits_synchronous(alice):
    memory = MemoryFactory(owner=alice, content="The boiler is serviced every October")
    with connection.cursor() as cursor:
        with transaction.atomic():
            record_access([memory])
            cursor.execute("SHOW synchronous_commit")
            assert cursor.fetchone() == ("off",)
        cursor.execute("SHOW synchronous_commit")
        assert cursor.fetchone() == ("on",)
    assert PendingAccess.objects.filter(memory_id=memory.pk).count() == 1
