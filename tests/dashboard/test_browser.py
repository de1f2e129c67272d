"""The dashboard in headless Chromium: sign in, open every page, check that each chart rendered and
that the browser logged no error, then resolve a finding and start a dry run through the UI."""

import pytest
from procrastinate.contrib.django.models import ProcrastinateJob

from memsite import jobs
from quality import tasks as quality_tasks
from quality.models import ConsolidationRun, Inconsistency
from tests.dashboard.browser import (
    curator_data,
    driver,
    open_page,
    pytestmark,
    severe_errors,
    sign_in,
    wait_for,
)

__all__ = ["curator_data", "driver", "pytestmark"]


def test_a_curator_opens_every_page_and_every_chart_renders(driver, live_server, curator_data):
    sign_in(driver, live_server)
    hub = curator_data["hub"]
    online = curator_data["online"]
    pages = {
        "overview": ("/dashboard/", ["chart-tiers", "chart-trend"]),
        "quality": (
            "/dashboard/quality/",
            ["chart-histogram", "chart-tiers", "chart-dimensions", "chart-trend"],
        ),
        "quality-filtered": ("/dashboard/quality/?memory_type=Context&tag=status", ["chart-histogram"]),
        "inconsistencies": ("/dashboard/inconsistencies/", ["chart-inconsistencies"]),
        "boosts": ("/dashboard/boosts/", ["chart-boosts"]),
        "memory-hub": (f"/dashboard/memories/{hub.pk}/", ["chart-memory-dimensions", "chart-network"]),
        "memory-contradicted": (f"/dashboard/memories/{online.pk}/", ["chart-memory-dimensions"]),
        "consolidation": ("/dashboard/consolidation/", ["chart-run-phases"]),
        "jobs": ("/dashboard/jobs/", []),
        "memories": ("/dashboard/memories/", []),
        "recall": (
            f"/dashboard/recall/?owner={hub.owner_id}&query=how+does+the+team+deploy&limit=6&expand_relations=true",
            [],
        ),
    }
    for name, (path, expected) in pages.items():
        charts = open_page(driver, f"{live_server.url}{path}", name)
        drawn = {chart.get_attribute("id") for chart in charts}
        assert set(expected) <= drawn, name
        assert severe_errors(driver) == [], name


def test_resolving_a_finding_in_the_review_queue_changes_the_database(driver, live_server, curator_data):
    from selenium.webdriver.common.by import By

    sign_in(driver, live_server)
    finding = Inconsistency.objects.get(type="contradiction")
    open_page(driver, f"{live_server.url}/dashboard/inconsistencies/", "inconsistencies-before")
    card = driver.find_element(By.ID, f"finding-{finding.pk}")
    card.find_element(By.CSS_SELECTOR, "button[value='link_contradicts:1']").click()
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".message.success"), "no confirmation shown")
    finding.refresh_from_db()
    assert (finding.status, finding.resolution) == ("resolved", "link_contradicts")
    assert finding.resolved_by == curator_data["curator"]
    assert not driver.find_elements(By.ID, f"finding-{finding.pk}")
    assert severe_errors(driver) == []


def test_a_dry_run_started_from_the_page_finishes_and_changes_nothing(
    driver, live_server, curator_data, run_jobs
):
    from selenium.webdriver.common.by import By

    sign_in(driver, live_server)
    before = ConsolidationRun.objects.count()
    hub = curator_data["hub"]
    open_page(driver, f"{live_server.url}/dashboard/consolidation/", "consolidation-before")
    driver.find_element(By.ID, "start-dry-run").click()
    wait_for(lambda: ConsolidationRun.objects.count() == before + 1, "no run was recorded")
    run = ConsolidationRun.objects.latest("started_at")
    assert run.status == "queued"
    run_jobs()
    wait_for(
        lambda: driver.find_elements(By.CSS_SELECTOR, f"#run-{run.pk} .status-succeeded"),
        "the page did not show the finished run",
    )
    run.refresh_from_db()
    assert run.dry_run is True
    assert run.started_by == curator_data["curator"]
    assert set(run.phases) == {"evaluate", "discover", "boost", "relevance", "retention", "cleanup"}
    hub_after = type(hub).objects.get(pk=hub.pk)
    assert hub_after.quality_score == pytest.approx(hub.quality_score)
    open_page(driver, f"{live_server.url}/dashboard/consolidation/", "consolidation-after-dry-run")
    assert severe_errors(driver) == []


def test_a_failed_job_is_retried_from_the_jobs_page(driver, live_server, curator_data, run_jobs):
    from selenium.webdriver.common.by import By

    job_id = jobs.defer(quality_tasks.detect_inconsistencies, owner_id=987654)  # no such owner: it fails
    run_jobs()
    sign_in(driver, live_server)
    open_page(driver, f"{live_server.url}/dashboard/jobs/", "jobs-failed")
    row = driver.find_element(By.ID, f"job-{job_id}")
    assert "DoesNotExist" in row.text
    row.find_element(By.ID, f"retry-{job_id}").click()
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".message.success"), "no confirmation shown")
    assert ProcrastinateJob.objects.get(pk=job_id).status == "todo"
    assert severe_errors(driver) == []
