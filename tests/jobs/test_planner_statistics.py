"""An owner the table's statistics do not know yet (a new user beside older ones) is planned as a
single row; enrichment jobs notice when an owner has outgrown them and queue an ANALYZE."""

import pytest
from django.db import connection
from procrastinate.contrib.django.models import ProcrastinateJob

from memories import planner
from memories.models import Memory
from tests.factories import MemoryFactory

ANALYZE_TASK = "memories.tasks.analyze_memories"


def estimate(owner):
    with connection.cursor() as cursor:
        cursor.execute(planner.ESTIMATE_SQL, [owner.pk])
        return cursor.fetchone()[0][0]["Plan"]["Plan Rows"]


def analyze_table():
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE memories_memory")


def ids_of(owner):
    return list(Memory.objects.filter(owner=owner).values_list("pk", flat=True))


@pytest.fixture
def small_floor(monkeypatch):
    """Outgrown past 3 × the estimate + 20 memories, so a test needs tens of them, not thousands."""
    monkeypatch.setattr(planner, "FLOOR", 20)


@pytest.mark.django_db
def test_a_new_owner_outgrows_the_statistics_until_the_table_is_analyzed_again(alice, bob, small_floor):
    MemoryFactory.create_batch(30, owner=alice)
    analyze_table()
    MemoryFactory.create_batch(30, owner=bob)
    assert estimate(bob) == 1

    assert planner.outgrown(ids_of(bob))
    assert not planner.outgrown(ids_of(alice))

    planner.analyze()
    assert estimate(bob) >= 20
    assert not planner.outgrown(ids_of(bob))


@pytest.mark.django_db
def test_a_table_no_larger_than_the_bound_is_left_to_autovacuum(alice, bob, small_floor):
    MemoryFactory.create_batch(5, owner=alice)
    analyze_table()
    MemoryFactory.create_batch(30, owner=bob)  # 30 > 3 × 1 + 20, but the table had 5 ≤ 23 memories
    assert not planner.outgrown(ids_of(bob))


@pytest.mark.django_db
def test_an_owner_below_the_floor_has_not_outgrown_its_statistics(alice, bob, small_floor):
    MemoryFactory.create_batch(30, owner=alice)
    analyze_table()
    MemoryFactory.create_batch(20, owner=bob)  # 3 × 1 + 20 = 23 allowed
    assert not planner.outgrown(ids_of(bob))


@pytest.mark.django_db(transaction=True)
def test_an_enrichment_job_queues_one_analyze_that_a_worker_runs(
    alice, bob, bob_client, run_jobs, small_floor
):
    MemoryFactory.create_batch(30, owner=alice)
    analyze_table()
    for batch in range(2):  # two enrichment jobs, each finding the owner outgrown
        memories = [{"content": f"Bob's trip note {batch}-{n} about the Lisbon office"} for n in range(30)]
        assert bob_client.post("/memory/batch", {"memories": memories}, format="json").status_code == 201

    run_jobs()

    analyses = ProcrastinateJob.objects.filter(task_name=ANALYZE_TASK)
    assert [job.status for job in analyses] == ["succeeded"]
    assert estimate(bob) >= 60


@pytest.mark.django_db(transaction=True)
def test_an_owner_the_statistics_know_queues_no_analyze(alice, alice_client, run_jobs, small_floor):
    MemoryFactory.create_batch(30, owner=alice)
    analyze_table()
    assert alice_client.post("/memory", {"content": "One more note"}, format="json").status_code == 201

    run_jobs()

    assert ProcrastinateJob.objects.filter(task_name="graph.tasks.enrich_memories").exists()
    assert not ProcrastinateJob.objects.filter(task_name=ANALYZE_TASK).exists()
