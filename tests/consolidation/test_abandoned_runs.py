"""A run whose process died (its session lock went with it) ends as failed, never running forever."""

import pytest
from django.db import connections

from quality.consolidation import recover_abandoned_runs, run_consolidation
from quality.consolidation.engine import ABANDONED_MESSAGE, LOCK_KEY
from quality.models import ConsolidationRun

pytestmark = pytest.mark.django_db


def abandoned_run():
    """What a SIGKILLed run leaves: its record in 'running', mid-phase, and no lock held."""
    return ConsolidationRun.objects.create(
        dry_run=False, phase="relevance", phases={"evaluate": {"evaluated": 3}}
    )


def test_reading_an_abandoned_run_shows_it_failed(staff_client):
    run = abandoned_run()

    body = staff_client.get(f"/api/consolidation/runs/{run.pk}").json()

    assert body["run"]["status"] == "failed"
    assert body["run"]["error"] == ABANDONED_MESSAGE
    assert body["run"]["finished_at"] is not None
    assert staff_client.get("/api/consolidation/runs").json()["runs"][0]["status"] == "failed"


def test_the_next_run_fails_the_abandoned_one_and_succeeds(alice):
    stale = abandoned_run()

    run = run_consolidation(dry_run=False)

    stale.refresh_from_db()
    assert (stale.status, stale.error) == ("failed", ABANDONED_MESSAGE)
    assert stale.phases == {"evaluate": {"evaluated": 3}}
    assert run.status == "succeeded"


def test_a_run_in_progress_elsewhere_is_left_running():
    run = abandoned_run()
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [LOCK_KEY])
        recovered = recover_abandoned_runs()
    finally:
        other.close()

    run.refresh_from_db()
    assert recovered == 0
    assert run.status == "running"
