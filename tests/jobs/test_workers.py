"""Real worker processes against the test database: recovery after SIGKILL, two workers at once."""

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import DEFAULT_DB_ALIAS, connection, connections
from procrastinate.contrib.django.models import ProcrastinateJob
from procrastinate.exceptions import AlreadyEnqueued

from graph.models import Enrichment
from memsite import jobs, tasks
from memsite.models import JobOutcome
from quality import tasks as quality_tasks
from quality.consolidation import queue_consolidation
from quality.models import ConsolidationRun
from tests.factories import MemoryFactory

ROOT = Path(__file__).resolve().parents[2]
WAIT_SECONDS = 120

pytestmark = pytest.mark.django_db(transaction=True)


def worker(*args):
    """`manage.py procrastinate worker` in its own process, on the test database, without the
    nightly schedules (a suite run at their hour would see their runs too)."""
    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "memsite.settings",
        "DATABASE_URL": url,
        "MEMSITE_CONSOLIDATION_CRON": "",
        "MEMSITE_DETECTION_CRON": "",
    }
    return subprocess.Popen(
        [sys.executable, "manage.py", "procrastinate", "worker", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(condition, message):
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, message
        time.sleep(0.2)


def finish(process):
    _, stderr = process.communicate(timeout=WAIT_SECONDS)
    assert process.returncode == 0, stderr


def test_a_stores_enrichment_is_done_by_a_worker_process(alice_client, run_jobs):
    response = alice_client.post("/memory", {"content": "Rachel joined Tech Corp in Berlin"}, format="json")
    memory_id = response.json()["memory_id"]
    assert Enrichment.objects.get(memory_id=memory_id).status == "pending"

    finish(worker("--one-shot"))

    enriched = Enrichment.objects.get(memory_id=memory_id)
    assert enriched.status == "done", enriched.error
    status = alice_client.get("/enrichment/status").json()
    assert (status["done_count"], status["pending_count"], status["lag_seconds"]) == (1, 0, None)


def test_a_job_whose_worker_was_killed_is_completed_by_another(alice_client, run_jobs):
    response = alice_client.post("/memory", {"content": "Sarah moved to Lisbon in May"}, format="json")
    memory_id = response.json()["memory_id"]
    job = ProcrastinateJob.objects.get(task_name="graph.tasks.enrich_memories")
    blocker = connections.create_connection(DEFAULT_DB_ALIAS)
    blocker.set_autocommit(False)
    with blocker.cursor() as cursor:  # the job blocks on this row until the blocker lets go
        cursor.execute("SELECT 1 FROM memories_memory WHERE id = %s FOR UPDATE", [memory_id])
    first = worker()
    try:
        wait_for(lambda: ProcrastinateJob.objects.get(pk=job.pk).status == "doing", "the job never started")
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
    finally:
        blocker.rollback()
        blocker.close()
    assert ProcrastinateJob.objects.get(pk=job.pk).status == "doing"
    with connection.cursor() as cursor:  # as if the recovery period had passed since the last heartbeat
        cursor.execute("UPDATE procrastinate_workers SET last_heartbeat = now() - interval '10 minutes'")

    with contextlib.suppress(AlreadyEnqueued):  # the first worker may have queued its periodic run
        jobs.defer(tasks.retry_stalled_jobs, timestamp=int(time.time()))
    run_jobs()

    assert ProcrastinateJob.objects.get(pk=job.pk).status == "succeeded"
    assert list(JobOutcome.objects.filter(job_id=job.pk).values_list("error", flat=True)) == [""]
    assert Enrichment.objects.get(memory_id=memory_id).status == "done"


def test_two_workers_never_run_a_job_twice(alice_client, run_jobs):
    for n in range(12):
        alice_client.post("/memory", {"content": f"Status update number {n} from Carol"}, format="json")
    queued = set(ProcrastinateJob.objects.values_list("pk", flat=True))
    assert len(queued) == 12

    workers = [worker("--one-shot"), worker("--one-shot")]
    for process in workers:
        finish(process)

    assert set(ProcrastinateJob.objects.values_list("status", flat=True)) == {"succeeded"}
    runs = list(JobOutcome.objects.filter(job_id__in=queued).values_list("job_id", flat=True))
    assert sorted(runs) == sorted(queued)
    assert set(Enrichment.objects.values_list("status", "error")) == {("done", "")}


def test_two_workers_run_one_consolidation_at_a_time(alice, staff, run_jobs):
    MemoryFactory.create_batch(20, owner=alice)
    run, _ = queue_consolidation(dry_run=True, started_by=staff)
    jobs.defer(quality_tasks.scheduled_consolidation, timestamp=int(time.time()))

    workers = [worker("--one-shot"), worker("--one-shot")]
    for process in workers:
        finish(process)

    runs = list(ConsolidationRun.objects.order_by("started_at"))
    assert [r.status for r in runs] == ["succeeded", "succeeded"], [(r.dry_run, r.error) for r in runs]
    assert {r.dry_run for r in runs} == {True, False}
    assert runs[0].finished_at <= runs[1].started_at
