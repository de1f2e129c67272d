"""Schedules come from the environment and are deferred by Procrastinate's periodic deferrer."""

import asyncio
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone
from procrastinate.contrib.django import app
from procrastinate.contrib.django.models import ProcrastinateJob
from procrastinate.periodic import PeriodicDeferrer

from memsite import jobs, tasks
from memsite.models import JobOutcome
from quality import tasks as quality_tasks
from quality.models import ConsolidationRun
from tests.factories import MemoryFactory

ROOT = Path(__file__).resolve().parents[2]
NIGHTLY = datetime(2026, 12, 1, 3, 30, 20, tzinfo=UTC).timestamp()


def scheduled(env):
    """The periodic tasks a process registers under these environment variables."""
    script = (
        "import django; django.setup();"
        "from procrastinate.contrib.django import app;"
        "print(sorted(f'{p.task.name} {p.cron}' for p in app.periodic_registry.periodic_tasks.values()))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "memsite.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    return result


def test_default_schedules_are_nightly_consolidation_and_detection_and_a_sweep():
    result = scheduled({})
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "quality.tasks.scheduled_consolidation 30 3 * * *" in out
    assert "quality.tasks.scheduled_detection 0 3 * * *" in out
    assert "graph.tasks.sweep_pending_enrichment */5 * * * *" in out
    assert "memsite.tasks.retry_stalled_jobs * * * * *" in out
    assert "memsite.tasks.prune_succeeded_jobs 15 4 * * *" in out


def test_an_empty_consolidation_cron_turns_the_schedule_off():
    result = scheduled({"MEMSITE_CONSOLIDATION_CRON": "", "MEMSITE_DETECTION_CRON": "15 2 * * 0"})
    assert result.returncode == 0, result.stderr
    assert "scheduled_consolidation" not in result.stdout
    assert "quality.tasks.scheduled_detection 15 2 * * 0" in result.stdout


def test_an_invalid_cron_stops_start_up_naming_the_variable():
    result = scheduled({"MEMSITE_CONSOLIDATION_CRON": "every night"})
    assert result.returncode != 0
    assert "MEMSITE_CONSOLIDATION_CRON must be a five-field cron expression" in result.stderr


@pytest.mark.django_db(transaction=True)
def test_the_nightly_tick_queues_a_real_consolidation_that_a_worker_runs(alice, run_jobs):
    MemoryFactory.create_batch(5, owner=alice)
    deferrer = PeriodicDeferrer(registry=app.periodic_registry)
    due = [
        (task, at)
        for task, at in deferrer.get_previous_tasks(at=NIGHTLY)
        if task.task.name == "quality.tasks.scheduled_consolidation"
    ]
    assert [at for _, at in due] == [int(NIGHTLY) - 20]

    asyncio.run(deferrer.defer_jobs(due))
    asyncio.run(deferrer.defer_jobs(due))
    run_jobs()

    run = ConsolidationRun.objects.get()
    assert (run.status, run.dry_run) == ("succeeded", False)
    assert run.phases["evaluate"]["evaluated"] == 5


@pytest.mark.django_db(transaction=True)
def test_succeeded_jobs_older_than_a_week_are_pruned_with_their_outcomes(alice, run_jobs):
    old = jobs.defer(quality_tasks.evaluate_quality, owner_id=alice.pk)
    run_jobs()
    recent = jobs.defer(quality_tasks.evaluate_quality, owner_id=alice.pk)
    run_jobs()
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE procrastinate_events SET at = now() - interval '8 days' WHERE job_id = %s", [old]
        )
    JobOutcome.objects.filter(job_id=old).update(finished_at=timezone.now() - timedelta(days=8))

    jobs.defer(tasks.prune_succeeded_jobs, timestamp=0)
    run_jobs()

    remaining = set(ProcrastinateJob.objects.values_list("pk", flat=True))
    assert old not in remaining
    assert recent in remaining
    assert not JobOutcome.objects.filter(job_id=old).exists()
    assert JobOutcome.objects.filter(job_id=recent).exists()
