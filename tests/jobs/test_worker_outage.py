"""A worker outlives a PostgreSQL outage: `manage.py worker` runs again once the database is back."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection
from procrastinate.contrib.django.models import ProcrastinateJob

from memsite import embedded_db, jobs
from quality import tasks

ROOT = Path(__file__).resolve().parents[2]
WAIT_SECONDS = 120

pytestmark = pytest.mark.django_db(transaction=True)


def memsite_worker():
    db = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "memsite.settings",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "MEMSITE_CONSOLIDATION_CRON": "",
        "MEMSITE_DETECTION_CRON": "",
    }
    return subprocess.Popen(
        [sys.executable, "manage.py", "worker"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(condition, message):
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        try:
            if condition():
                return
        except Exception:  # the database is still coming back
            connection.close()
        assert time.monotonic() < deadline, message
        time.sleep(0.3)


def live_workers():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM procrastinate_workers WHERE last_heartbeat > now() - interval '15 s'"
        )
        return cursor.fetchone()[0]


def test_a_worker_runs_jobs_again_after_postgresql_stops_for_five_seconds(alice):
    process = memsite_worker()
    try:
        wait_for(lambda: live_workers() == 1, "the worker never sent a heartbeat")
        connection.close()
        embedded_db.PRIMARY.stop()  # the primary only: a streaming replica reconnects by itself
        time.sleep(5)
        embedded_db.PRIMARY.launch()
        job_id = None

        def queued():
            nonlocal job_id
            job_id = jobs.defer(tasks.evaluate_quality, owner_id=alice.pk)
            return True

        wait_for(queued, "the database did not come back")
        wait_for(
            lambda: ProcrastinateJob.objects.get(pk=job_id).status == "succeeded",
            "no job ran after the outage",
        )

        assert process.poll() is None
        assert live_workers() == 1
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=WAIT_SECONDS)

    assert process.returncode == 0, stderr
    assert "starting it again" in stderr
