"""Headless Chromium for the dashboard and admin browser tests: the driver, committed curation
data for the live server, sign-in, and page opening that waits for every plotly chart.

Screenshots of each page go to screenshots/ (git-ignored). `make test` installs Debian's chromium
and chromium-driver; without them the browser tests are skipped.
"""

import base64
import shutil
import tempfile
import time
from pathlib import Path

import pytest
from django.conf import settings

from memories.models import Memory
from memories.services import delete_memory
from tests.dashboard.curation import build_curation_data
from tests.factories import UserFactory

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
    curator = UserFactory(username="curator", password="curator-pass", is_staff=True)
    owner = UserFactory(username="alice")
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
    """The whole page as screenshots/<name>.png, and at half size as screenshots/small/<name>.png
    (the size docs/screenshots keeps)."""
    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    (SCREENSHOTS / "small").mkdir(exist_ok=True)
    for path, scale in ((SCREENSHOTS / f"{name}.png", 1), (SCREENSHOTS / "small" / f"{name}.png", 0.5)):
        shot = driver.execute_cdp_cmd(
            "Page.captureScreenshot",
            {
                "format": "png",
                "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": scale},
            },
        )
        path.write_bytes(base64.b64decode(shot["data"]))


def severe_errors(driver):
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
