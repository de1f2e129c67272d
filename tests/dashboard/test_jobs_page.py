"""The dashboard's Jobs page: queue depth, running and failed jobs with their error, retry."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from procrastinate.contrib.django.models import ProcrastinateJob

from memsite import jobs
from memsite.models import JobOutcome
from quality import tasks

pytestmark = pytest.mark.django_db(transaction=True)
MISSING_OWNER = 987654


@pytest.fixture
def curator(staff):
    client = Client()
    client.force_login(staff)
    return client


@pytest.fixture
def failed_job(run_jobs):
    """A detection job for an owner that does not exist, run by a real worker: it fails."""
    job_id = jobs.defer(tasks.detect_inconsistencies, owner_id=MISSING_OWNER)
    run_jobs()
    assert ProcrastinateJob.objects.get(pk=job_id).status == "failed"
    return job_id


def test_the_jobs_page_shows_waiting_jobs_and_failed_ones_with_their_error(curator, alice, failed_job):
    jobs.defer(tasks.evaluate_quality, owner_id=alice.pk)
    page = curator.get(reverse("dashboard:jobs"))
    assert page.status_code == 200
    html = page.content.decode()
    assert '<strong id="jobs-waiting">1</strong>' in html
    assert "no worker seen" in html
    assert "quality.tasks.evaluate_quality" in html
    assert f'id="job-{failed_job}"' in html
    assert "DoesNotExist: User matching query does not exist." in html


def test_the_retry_button_puts_a_failed_job_back_in_the_queue(curator, failed_job):
    response = curator.post(reverse("dashboard:retry_job", args=[failed_job]))
    assert response.status_code == 302
    assert ProcrastinateJob.objects.get(pk=failed_job).status == "todo"
    again = curator.post(reverse("dashboard:retry_job", args=[failed_job]), follow=True)
    assert f"Job #{failed_job} is not a failed job." in again.content.decode()


def test_the_jobs_page_is_for_staff_only(alice):
    client = Client()
    client.force_login(alice)
    assert client.get(reverse("dashboard:jobs")).status_code == 403
    assert client.post(reverse("dashboard:retry_job", args=[1])).status_code == 403


def test_metrics_count_the_failed_attempt_and_its_time(curator, failed_job):
    text = curator.get("/metrics").content.decode()
    labels = '{outcome="failed",task="quality.tasks.detect_inconsistencies"}'
    assert f"memsite_job_attempts_total{labels} 1.0" in text
    assert f"memsite_job_duration_seconds_total{labels}" in text


def test_finished_jobs_stay_in_the_history_with_owner_duration_and_outcome(curator, alice, run_jobs):
    job_id = jobs.defer(tasks.detect_inconsistencies, owner_id=alice.pk)
    run_jobs()
    response = curator.get(reverse("dashboard:jobs"))
    rows = [row for row in response.context["history"] if row["job_id"] == job_id]
    assert [(row["owner"], row["outcome"], row["attempt"]) for row in rows] == [("alice", "succeeded", 1)]
    html = response.content.decode()
    assert "No job is waiting, running or failed." in html
    assert f"<td>#{job_id}</td><td>quality.tasks.detect_inconsistencies</td><td>alice</td>" in html


def test_the_per_task_counts_follow_the_chosen_range(curator, failed_job):
    week = curator.get(reverse("dashboard:jobs")).context["per_task"]
    assert [(row["task"], row["succeeded"], row["failed"]) for row in week] == [
        ("quality.tasks.detect_inconsistencies", 0, 1)
    ]
    JobOutcome.objects.update(finished_at=timezone.now() - timedelta(days=10))
    assert curator.get(reverse("dashboard:jobs"), {"range": "7"}).context["per_task"] == []
    assert len(curator.get(reverse("dashboard:jobs"), {"range": "all"}).context["per_task"]) == 1
    assert curator.get(reverse("dashboard:jobs"), {"range": "bogus"}).context["range"] == "7"


def test_the_jobs_page_has_a_plain_title_and_one_history_table(curator):
    html = curator.get(reverse("dashboard:jobs")).content.decode()
    assert "<title>Jobs · memsite</title>" in html
    assert html.count('id="job-history"') == 1
