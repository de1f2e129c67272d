"""Whole consolidation runs: dry run, real run, the run record, the command and the API."""

import pytest
from django.core.management import call_command
from django.db import connections

from memories.models import Memory
from quality.consolidation import engine, run_consolidation
from quality.consolidation.engine import LOCK_KEY
from quality.models import ConsolidationRun, QualityAssessment, QualityBoost, QualitySnapshot
from tests.consolidation.conftest import hub
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db
PHASE_NAMES = ["evaluate", "discover", "boost", "relevance", "retention", "cleanup"]
STATE = [
    "quality_overall",
    "quality_score",
    "quality_boost_applied",
    "relevance_score",
    "archived_at",
    "metadata",
    "quality_evaluated_at",
]


@pytest.fixture
def corpus(alice, boost_settings):
    """A well-connected memory, a stale one that retention archives, and a few others."""
    centre = hub(alice, 6, quality=0.5)
    stale = MemoryFactory(owner=alice, quality=0.2, days_old=200)
    return centre, stale


def _state():
    return list(Memory.objects.order_by("pk").values_list("pk", *STATE))


def test_a_dry_run_records_what_would_change_and_changes_nothing(alice, corpus):
    QualityAssessment.objects.all().delete()  # the store's own assessments; the run must add none
    before = _state()

    run = run_consolidation(dry_run=True, started_by=alice)

    assert _state() == before
    assert not QualityBoost.objects.exists()
    assert not QualityAssessment.objects.exists()
    assert not QualitySnapshot.objects.exists()
    run = ConsolidationRun.objects.get(pk=run.pk)
    assert (run.status, run.dry_run, run.phase, run.started_by) == ("succeeded", True, "done", alice)
    assert set(run.phases) == set(PHASE_NAMES)
    assert run.phases["evaluate"]["evaluated"] == 8
    assert run.phases["boost"]["applied"] == 1
    assert run.phases["retention"]["archived"] == 1
    assert run.phases["cleanup"]["snapshots"] == 1
    assert all(isinstance(counts["duration_ms"], int) for counts in run.phases.values())


def test_a_real_run_applies_every_phase(alice, corpus):
    centre, stale = corpus

    run = run_consolidation(dry_run=False)

    centre.refresh_from_db()
    stale.refresh_from_db()
    assert run.status == "succeeded"
    assert centre.quality_boost_applied is True
    assert centre.quality_score == pytest.approx(min(1, centre.quality_overall * 1.2))
    assert centre.relevance_score is not None
    assert stale.archived_at is not None
    assert QualityBoost.objects.get(memory=centre).run == run
    assert QualityAssessment.objects.filter(trigger="consolidation").count() == 8
    assert QualitySnapshot.objects.get(owner=alice).run == run


def test_a_second_real_run_changes_no_boost_and_archives_nothing_more(alice, corpus):
    run_consolidation(dry_run=False)

    second = run_consolidation(dry_run=False)

    boost = second.phases["boost"]
    assert (boost["applied"], boost["recomputed"], boost["decayed"]) == (0, 0, 0)
    assert second.phases["retention"]["archived"] == 0
    assert QualityBoost.objects.count() == 1


def test_a_run_while_the_lock_is_held_elsewhere_is_refused(alice, staff_client):
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [LOCK_KEY])
        response = staff_client.post("/api/consolidation/run", {}, format="json")
    finally:
        other.close()

    assert response.status_code == 409
    assert response.json() == {
        "status": "error",
        "code": 409,
        "message": "A consolidation run is already in progress",
    }
    assert not ConsolidationRun.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_the_api_queues_a_dry_run_by_default_and_a_worker_runs_it(staff_client, corpus, run_jobs):
    response = staff_client.post("/api/consolidation/run", {}, format="json")

    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "accepted"
    assert (body["run"]["status"], body["run"]["dry_run"]) == ("queued", True)
    assert body["poll"] == f"/api/consolidation/runs/{body['run']['id']}"
    assert staff_client.get(f"/api/jobs/{body['job_id']}").json()["job"]["status"] == "todo"

    run_jobs()

    run = staff_client.get(body["poll"]).json()["run"]
    assert run["dry_run"] is True
    assert run["status"] == "succeeded"
    assert run["started_by"] == "curator"
    assert run["progress"] == {"completed_phases": 6, "total_phases": 6}
    assert run["phases"]["boost"]["applied"] == 1
    assert run["parameters"]["quality_boost_factor"] == 1.2
    assert not Memory.objects.filter(quality_boost_applied=True).exists()
    assert ConsolidationRun.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_api_applies_when_asked(staff_client, corpus, run_jobs):
    response = staff_client.post("/api/consolidation/run", {"dry_run": False}, format="json")

    assert response.status_code == 202
    assert response.json()["run"]["dry_run"] is False
    run_jobs()
    assert Memory.objects.filter(quality_boost_applied=True).count() == 1


def test_a_second_run_requested_while_one_is_queued_gets_409(staff_client):
    assert staff_client.post("/api/consolidation/run", {}, format="json").status_code == 202

    response = staff_client.post("/api/consolidation/run", {"dry_run": False}, format="json")

    assert response.status_code == 409
    assert response.json()["message"] == "A consolidation run is already in progress"
    assert list(ConsolidationRun.objects.values_list("status", "dry_run")) == [("queued", True)]


def test_the_api_rejects_a_bad_dry_run_value(staff_client):
    response = staff_client.post("/api/consolidation/run", {"dry_run": "maybe"}, format="json")

    assert response.status_code == 400
    assert response.json()["message"] == "'dry_run': Must be a valid boolean."


def test_runs_are_for_staff_only(alice_client, anon_client):
    assert alice_client.post("/api/consolidation/run", {}, format="json").status_code == 403
    assert alice_client.get("/api/consolidation/runs").status_code == 403
    assert anon_client.get("/api/consolidation/runs").status_code == 401


def test_runs_are_listed_newest_first(staff_client, staff, django_assert_max_num_queries):
    runs = [run_consolidation(dry_run=True, started_by=staff) for _ in range(6)]

    with django_assert_max_num_queries(10):
        response = staff_client.get("/api/consolidation/runs")

    body = response.json()
    assert body["count"] == 6
    assert [run["id"] for run in body["runs"]] == [run.pk for run in reversed(runs)]
    assert body["runs"][0]["started_by"] == "curator"
    page = staff_client.get("/api/consolidation/runs", {"limit": 2, "offset": 1}).json()
    assert [run["id"] for run in page["runs"]] == [runs[4].pk, runs[3].pk]


def test_a_run_is_shown_with_its_phases(staff_client):
    run = run_consolidation(dry_run=True)

    body = staff_client.get(f"/api/consolidation/runs/{run.pk}").json()

    assert body["run"]["id"] == run.pk
    assert list(body["run"]["phases"]) == PHASE_NAMES
    assert body["run"]["duration_ms"] >= 0


def test_an_unknown_run_answers_404(staff_client):
    response = staff_client.get("/api/consolidation/runs/999999")

    assert response.status_code == 404
    assert response.json()["message"] == "Consolidation run not found"


def test_the_command_dry_runs_by_default_and_prints_a_summary(corpus, capsys):
    call_command("consolidate", verbosity=2)

    out = capsys.readouterr().out
    assert "Association quality boost: " in out
    assert "Dry run #" in out
    assert "1 boosted" in out
    assert "(nothing changed)" in out
    assert not Memory.objects.filter(quality_boost_applied=True).exists()


def test_the_command_applies_with_apply(corpus, capsys):
    call_command("consolidate", "--apply")

    assert "Run #" in capsys.readouterr().out
    assert Memory.objects.filter(quality_boost_applied=True).count() == 1


def test_a_failing_phase_marks_the_run_failed_and_releases_the_lock(monkeypatch, corpus):
    def broken(run):
        raise RuntimeError("disk on fire")

    phases = list(engine.PHASES)
    monkeypatch.setattr(engine, "PHASES", [*phases[:3], ("relevance", "Relevance", broken), *phases[4:]])

    with pytest.raises(RuntimeError, match="disk on fire"):
        run_consolidation(dry_run=False)

    failed = ConsolidationRun.objects.get()
    assert (failed.status, failed.phase, failed.error) == (
        "failed",
        "relevance",
        "RuntimeError: disk on fire",
    )
    assert set(failed.phases) == {"evaluate", "discover", "boost"}
    assert Memory.objects.filter(quality_boost_applied=True).count() == 1
    monkeypatch.setattr(engine, "PHASES", phases)
    assert run_consolidation(dry_run=True).status == "succeeded"


def test_a_run_from_the_command_line_answers_a_null_started_by_the_schema_allows(staff_client, anon_client):
    call_command("consolidate")
    run = staff_client.get("/api/consolidation/runs").json()["runs"][0]
    schema = anon_client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()

    assert run["started_by"] is None
    assert schema["components"]["schemas"]["ConsolidationRun"]["properties"]["started_by"]["nullable"] is True
