"""The dashboard in headless Chromium: sign in, open every page, check that each chart rendered and
that the browser logged no error, then resolve a finding and start a dry run through the UI.

Screenshots of each page go to screenshots/ (git-ignored). `make test` installs Debian's chromium
and chromium-driver; without them these tests are skipped.
"""

import base64
import shutil
import tempfile
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from procrastinate.contrib.django.models import ProcrastinateJob

from memories.models import Memory
from memories.services import delete_memory
from memsite import jobs
from quality import tasks as quality_tasks
from quality.models import ConsolidationRun, Inconsistency
from tests.dashboard.curation import build_curation_data

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
SCREENSHOTS = settings.BASE_DIR / "screenshots"
WIDTH = 1440
WAIT_SECONDS = 30

pytestmark = [
    pytest.mark.skipif(
        not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
        reason="Chromium not found: `make test` installs Debian's chromium and chromium-driver",
    ),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture(scope="module")
def driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="memsite-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--window-size={WIDTH},1000",
        f"--user-data-dir={profile}",
    ]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    browser.implicitly_wait(0)
    SCREENSHOTS.mkdir(exist_ok=True)
    yield browser
    browser.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def curator_data(transactional_db):
    """Committed data for the live server; the graph vertices go too at the end (the flush after a
    transactional test empties the tables but not the AGE graph)."""
    curator = get_user_model().objects.create_user("curator", password="curator-pass", is_staff=True)
    owner = get_user_model().objects.create_user("alice", password="pw")
    yield {"curator": curator, **build_curation_data(owner)}
    for memory in Memory.objects.all():
        delete_memory(memory)


def wait_for(condition, message):
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.1)
    raise AssertionError(message)


def sign_in(driver, live_server):
    from selenium.webdriver.common.by import By

    driver.get(f"{live_server.url}/dashboard/")
    assert "/accounts/login/" in driver.current_url
    driver.find_element(By.ID, "id_username").send_keys("curator")
    driver.find_element(By.ID, "id_password").send_keys("curator-pass")
    driver.find_element(By.CSS_SELECTOR, "form.stack button[type=submit]").click()
    wait_for(
        lambda: driver.find_elements(By.CSS_SELECTOR, "nav.nav"), "the dashboard did not open after sign-in"
    )
    driver.get_log("browser")


def open_page(driver, url, name):
    """Open a page, wait until every plotly chart drew its SVG, screenshot it; return the timing."""
    from selenium.webdriver.common.by import By

    started = time.perf_counter()
    driver.get(url)
    charts = driver.find_elements(By.CSS_SELECTOR, ".plotly-graph-div")
    wait_for(
        lambda: all(chart.find_elements(By.CSS_SELECTOR, ".main-svg") for chart in charts),
        f"a chart on {name} did not render",
    )
    elapsed_ms = (time.perf_counter() - started) * 1000
    timing = driver.execute_script(
        "const t = performance.getEntriesByType('navigation')[0];"
        "return [t.responseStart - t.requestStart, t.domContentLoadedEventEnd - t.startTime];"
    )
    save_full_page(driver, name)
    print(
        f"{name}: {len(charts)} charts, server {timing[0]:.0f} ms, DOM ready {timing[1]:.0f} ms, "
        f"charts drawn {elapsed_ms:.0f} ms"
    )
    return charts


def save_full_page(driver, name):
    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    shot = driver.execute_cdp_cmd(
        "Page.captureScreenshot",
        {
            "format": "png",
            "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1},
        },
    )
    (SCREENSHOTS / f"{name}.png").write_bytes(base64.b64decode(shot["data"]))


def severe_errors(driver):
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


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
    assert set(run.phases) == {"evaluate", "boost", "relevance", "retention", "cleanup"}
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
