"""Two consolidation runs at the same time: the second is refused with 409."""

import threading

import pytest

from quality.consolidation import run_consolidation
from quality.models import ConsolidationRun
from tests.conftest import in_thread
from tests.consolidation.conftest import hub


@pytest.mark.django_db(transaction=True)
def test_a_run_requested_while_another_runs_gets_409(alice, staff_client, boost_settings):
    hub(alice, 5)
    started, answered = threading.Event(), threading.Event()

    def pause_in_boost_phase(run, index, name, label):
        if name == "boost":
            started.set()
            answered.wait(timeout=60)

    worker, outcome = in_thread(run_consolidation, dry_run=False, on_phase=pause_in_boost_phase)
    try:
        assert started.wait(timeout=60)
        running = ConsolidationRun.objects.get()
        response = staff_client.post("/api/consolidation/run", {"dry_run": False}, format="json")
        polled = staff_client.get(f"/api/consolidation/runs/{running.pk}").json()["run"]
    finally:
        answered.set()
        worker.join(timeout=120)

    assert response.status_code == 409
    assert response.json()["message"] == "A consolidation run is already in progress"
    assert (polled["status"], polled["phase"]) == ("running", "boost")
    assert polled["progress"]["completed_phases"] == 2
    assert outcome[0].status == "succeeded"
    assert ConsolidationRun.objects.count() == 1
