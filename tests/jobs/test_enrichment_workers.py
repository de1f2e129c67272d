"""Two worker processes enrich memories of one owner at the same time, without deadlocks."""

from django.core.management import call_command
from django.db import DEFAULT_DB_ALIAS, connections
from procrastinate.contrib.django.models import ProcrastinateJob

from graph.models import Association, Enrichment
from memsite.models import JobOutcome
from tests.jobs.test_workers import finish, pytestmark, wait_for, worker

__all__ = ["pytestmark"]

TOPICS = [
    "Rachel moved the Berlin office to a bigger floor",
    "Tomas fixed the billing export for the Lisbon team",
    "Priya planned the Madrid offsite for the design group",
    "Omar upgraded the Oslo build servers to faster disks",
]


def enrichment_jobs():
    # Long-running workers also queue the periodic jobs (stalled-job recovery, sweep).
    return ProcrastinateJob.objects.filter(task_name="graph.tasks.enrich_memories")


UNRELATED = [
    "The sourdough starter needs feeding twice a day",
    "Tide tables for the north beach change every spring",
    "A cello string snapped during the Sunday rehearsal",
    "The greenhouse tomatoes ripened early this year",
]


def store_batches(client, tag, count, topics=TOPICS):
    """`count` batches (one enrichment job each) about the same topics, so jobs link each other."""
    for number in range(count):
        memories = [{"content": f"{topic}, note {number}", "tags": [tag]} for topic in topics]
        response = client.post("/memory/batch", {"memories": memories}, format="json")
        assert response.status_code == 201, response.json()


def test_two_workers_enrich_one_owners_neighbouring_memories_without_deadlock(
    alice_client, run_jobs, capsys, monkeypatch
):
    monkeypatch.setenv("MEMSITE_ENRICHMENT_TAKE_PENDING", "0")  # each job enriches its own batch
    store_batches(alice_client, "offices", 8)
    queued = set(ProcrastinateJob.objects.values_list("pk", flat=True))
    assert len(queued) == 8

    workers = [worker("--one-shot"), worker("--one-shot")]
    for process in workers:
        finish(process)

    assert set(ProcrastinateJob.objects.values_list("status", flat=True)) == {"succeeded"}
    outcomes = list(JobOutcome.objects.filter(job_id__in=queued).values_list("job_id", "error"))
    assert sorted(outcomes) == sorted((pk, "") for pk in queued)  # one attempt each: no deadlock retried
    assert set(Enrichment.objects.values_list("status", "error")) == {("done", "")}
    similar = list(Association.objects.filter(relation_type="SIMILAR_TO").values_list("source", "target"))
    assert len(similar) >= 8 * len(TOPICS)
    assert len({frozenset(pair) for pair in similar}) == len(similar)  # one edge per pair
    call_command("graph_check")
    assert "Graph and tables agree." in capsys.readouterr().out


def test_a_worker_enriches_an_owners_memories_while_another_job_of_that_owner_is_running(
    alice_client, run_jobs, capsys, monkeypatch
):
    monkeypatch.setenv("MEMSITE_ENRICHMENT_TAKE_PENDING", "0")
    store_batches(alice_client, "first", 1)
    blocked = enrichment_jobs().get()
    first_ids = list(Enrichment.objects.values_list("memory_id", flat=True))
    store_batches(alice_client, "second", 1, UNRELATED)  # no link between the two jobs' memories
    blocker = connections.create_connection(DEFAULT_DB_ALIAS)
    blocker.set_autocommit(False)
    with blocker.cursor() as cursor:  # the first job waits on these rows, inside its transaction
        cursor.execute("SELECT 1 FROM memories_memory WHERE id = ANY(%s) FOR UPDATE", [first_ids])
    workers = [worker(), worker()]
    try:
        try:
            wait_for(
                lambda: set(enrichment_jobs().values_list("status", flat=True)) == {"doing", "succeeded"},
                "the second job did not finish while the first one was running",
            )
            assert enrichment_jobs().get(status="doing").pk == blocked.pk
        finally:
            blocker.rollback()
            blocker.close()
        wait_for(
            lambda: set(enrichment_jobs().values_list("status", flat=True)) == {"succeeded"},
            "the first job did not finish",
        )
    finally:
        for process in workers:
            process.terminate()
            process.communicate(timeout=60)

    assert set(Enrichment.objects.values_list("status", "error")) == {("done", "")}
    call_command("graph_check")
    assert "Graph and tables agree." in capsys.readouterr().out
