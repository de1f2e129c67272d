"""A killed consolidation plus a second request: recovery of each stalled job stands alone, a run's
recorded status stays true, and of simultaneous run requests one wins."""

import time

import pytest
from django.db import connection
from procrastinate.contrib.django.models import ProcrastinateJob

from memsite import jobs, tasks
from quality import tasks as quality_tasks
from quality.consolidation import queue_consolidation
from quality.consolidation.engine import ABANDONED_MESSAGE, recover_abandoned_runs
from quality.models import ConsolidationRun
from tests.conftest import at_once, client_for

pytestmark = pytest.mark.django_db(transaction=True)


def as_stalled(job_id):
    """The job as a worker killed with SIGKILL leaves it: doing, its worker silent for 10 minutes."""
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO procrastinate_workers (last_heartbeat) VALUES (now() - interval '10 minutes') "
            "RETURNING id"
        )
        (worker_id,) = cursor.fetchone()
        cursor.execute(
            "UPDATE procrastinate_jobs SET status = 'doing', worker_id = %s WHERE id = %s",
            [worker_id, job_id],
        )


def test_a_stalled_run_behind_a_newer_request_is_settled_and_other_stalled_jobs_recovered(
    alice, staff, run_jobs
):
    killed_run, killed_job = queue_consolidation(dry_run=False, started_by=staff)
    as_stalled(killed_job)
    ConsolidationRun.objects.filter(pk=killed_run.pk).update(status=ConsolidationRun.Status.RUNNING)
    enrichment = jobs.defer(quality_tasks.evaluate_quality, owner_id=alice.pk)
    as_stalled(enrichment)
    with connection.cursor() as cursor:  # the dry run requested after the kill, as the API queues it
        cursor.execute(
            "INSERT INTO quality_consolidationrun (status, dry_run, started_at, phase, phases, "
            "parameters, error) VALUES ('queued', true, now(), '', '{}', '{}', '') RETURNING id"
        )
        (second_run,) = cursor.fetchone()
    second_job = quality_tasks.consolidate.defer(run_id=second_run)

    jobs.defer(tasks.retry_stalled_jobs, timestamp=int(time.time()))
    run_jobs()

    assert ProcrastinateJob.objects.get(pk=killed_job).status == "failed"
    assert ProcrastinateJob.objects.get(pk=enrichment).status == "succeeded"
    assert ProcrastinateJob.objects.get(pk=second_job).status == "succeeded"
    killed, second = (
        ConsolidationRun.objects.get(pk=killed_run.pk),
        ConsolidationRun.objects.get(pk=second_run),
    )
    assert (killed.status, killed.error) == ("failed", ABANDONED_MESSAGE)
    assert second.status == "succeeded"


def test_a_run_read_as_interrupted_stays_failed_when_its_job_is_retried(staff, run_jobs):
    run, job_id = queue_consolidation(dry_run=True, started_by=staff)
    as_stalled(job_id)
    ConsolidationRun.objects.filter(pk=run.pk).update(status=ConsolidationRun.Status.RUNNING)
    assert recover_abandoned_runs() == 1

    jobs.defer(tasks.retry_stalled_jobs, timestamp=int(time.time()))
    run_jobs()

    run.refresh_from_db()
    assert (run.status, run.error) == ("failed", ABANDONED_MESSAGE)
    assert ProcrastinateJob.objects.get(pk=job_id).status == "succeeded"


def test_a_run_retried_before_anyone_read_it_runs_again_to_its_outcome(staff, run_jobs):
    run, job_id = queue_consolidation(dry_run=True, started_by=staff)
    as_stalled(job_id)
    ConsolidationRun.objects.filter(pk=run.pk).update(status=ConsolidationRun.Status.RUNNING)

    jobs.defer(tasks.retry_stalled_jobs, timestamp=int(time.time()))
    run_jobs()

    run.refresh_from_db()
    assert (run.status, run.error) == ("succeeded", "")


def test_of_seven_simultaneous_run_requests_one_is_accepted_and_six_are_409(staff):
    clients = [client_for(staff) for _ in range(7)]

    responses = at_once(
        [
            lambda client=client: client.post("/api/consolidation/run", {"dry_run": True}, format="json")
            for client in clients
        ]
    )

    assert sorted(response.status_code for response in responses) == [202] + [409] * 6
    assert ConsolidationRun.objects.count() == 1
