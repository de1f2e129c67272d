import pytest
from django.contrib.messages import get_messages
from django.db import DEFAULT_DB_ALIAS, connections
from django.test import Client
from django.urls import reverse
from procrastinate.contrib.django.models import ProcrastinateJob

from graph.models import Association
from quality.consolidation.engine import LOCK_KEY
from quality.models import ConsolidationRun, Inconsistency

pytestmark = pytest.mark.django_db


@pytest.fixture
def contradiction(curation_data):
    return Inconsistency.objects.get(type="contradiction")


def resolve(client, finding, action, **extra):
    return client.post(reverse("dashboard:resolve", args=[finding.pk]), {"action": action, **extra})


def test_linking_a_contradiction_resolves_it_and_adds_the_edge(curator, contradiction, staff):
    response = resolve(curator, contradiction, "link_contradicts:1")
    assert response.status_code == 302
    contradiction.refresh_from_db()
    assert (contradiction.status, contradiction.resolution, contradiction.resolved_by) == (
        "resolved",
        "link_contradicts",
        staff,
    )
    assert Association.objects.filter(
        source=contradiction.memory1, target=contradiction.memory2, relation_type="CONTRADICTS"
    ).exists()


def test_archiving_one_side_archives_that_memory(curator, contradiction):
    resolve(curator, contradiction, "archive:2")
    contradiction.memory2.refresh_from_db()
    contradiction.memory1.refresh_from_db()
    assert contradiction.memory2.archived_at is not None
    assert contradiction.memory1.archived_at is None


def test_the_dismiss_button_dismisses_the_finding(curator, contradiction):
    resolve(curator, contradiction, "dismiss")
    contradiction.refresh_from_db()
    assert contradiction.status == "dismissed"


def test_an_action_that_does_not_fit_the_finding_is_refused(curator, contradiction):
    response = resolve(curator, contradiction, "merge:1")
    contradiction.refresh_from_db()
    assert contradiction.status == "open"
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        "This action does not apply to this finding."
    ]


def test_resolving_a_closed_finding_shows_the_reason_instead_of_failing(curator, contradiction):
    resolve(curator, contradiction, "dismiss")
    response = resolve(curator, contradiction, "keep_both")
    assert response.status_code == 302
    assert [str(m) for m in get_messages(response.wsgi_request)][-1] == "Inconsistency is already dismissed"


def test_an_offsite_next_address_is_ignored(curator, contradiction):
    response = resolve(curator, contradiction, "keep_both", next="https://example.com/")
    assert response["Location"] == reverse("dashboard:inconsistencies")


def test_dashboard_actions_need_a_csrf_token(staff, contradiction):
    client = Client(enforce_csrf_checks=True)
    client.force_login(staff)
    assert resolve(client, contradiction, "keep_both").status_code == 403
    contradiction.refresh_from_db()
    assert contradiction.status == "open"


def test_actions_refuse_get(curator, contradiction):
    assert curator.get(reverse("dashboard:resolve", args=[contradiction.pk])).status_code == 405


def test_non_staff_users_cannot_act(client, alice, contradiction):
    client.force_login(alice)
    assert resolve(client, contradiction, "keep_both").status_code == 403


def test_the_reset_button_removes_a_boost(curator, curation_data):
    hub = curation_data["hub"]
    assert hub.quality_boost_applied
    curator.post(reverse("dashboard:reset_boost", args=[hub.pk]))
    hub.refresh_from_db()
    assert hub.quality_boost_applied is False


def test_an_unknown_run_mode_starts_nothing(curator, curation_data):
    response = curator.post(reverse("dashboard:start_consolidation"), {"mode": "everything"})
    assert response.status_code == 302
    assert [str(m) for m in get_messages(response.wsgi_request)] == ["Choose a dry run or a real run."]


def test_the_start_button_queues_a_run_for_a_worker(curator, db):
    response = curator.post(reverse("dashboard:start_consolidation"), {"mode": "dry_run"})
    assert response.status_code == 302
    run = ConsolidationRun.objects.get()
    assert (run.status, run.dry_run) == ("queued", True)
    job = ProcrastinateJob.objects.get(task_name="quality.tasks.consolidate")
    assert (job.status, job.args) == ("todo", {"run_id": run.pk})
    page = curator.get(reverse("dashboard:consolidation")).content.decode()
    assert f"Run #{run.pk} is queued (dry run)" in page


def test_the_progress_endpoint_reports_a_runs_phases(curator, curation_data):
    run = curation_data["run"]
    body = curator.get(reverse("dashboard:run_progress", args=[run.pk])).json()
    assert body["status"] == "succeeded"
    assert (body["phases_done"], body["phases_total"]) == (6, 6)


def test_starting_a_run_while_another_one_runs_says_so(curator, db):
    other = connections.create_connection(DEFAULT_DB_ALIAS)
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [LOCK_KEY])
        response = curator.post(reverse("dashboard:start_consolidation"), {"mode": "dry_run"})
    finally:
        other.close()
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        "A consolidation run is already in progress."
    ]
    assert not ConsolidationRun.objects.exists()


def test_a_memory_is_archived_and_restored_from_its_page(curator, curation_data):
    memory = curation_data["memories"][6]
    response = curator.post(reverse("dashboard:archive", args=[memory.pk]))
    assert response["Location"] == reverse("dashboard:memory", args=[memory.pk])
    memory.refresh_from_db()
    assert memory.archived_at is not None
    assert memory.archive_reason == "archived by curator"
    assert b"Restore" in curator.get(response["Location"]).content
    curator.post(reverse("dashboard:restore", args=[memory.pk]))
    memory.refresh_from_db()
    assert memory.archived_at is None


def test_restoring_a_memory_stored_again_meanwhile_shows_the_conflict(curator, alice_client):
    old = alice_client.post("/memory", {"content": "The standup moved to ten."}, format="json").json()
    alice_client.post(f"/memory/{old['memory_id']}/archive")
    new = alice_client.post("/memory", {"content": "The standup moved to ten."}, format="json").json()

    response = curator.post(reverse("dashboard:restore", args=[old["memory_id"]]))

    assert response.status_code == 302
    [message] = [str(m) for m in get_messages(response.wsgi_request)]
    assert new["memory_id"] in message
