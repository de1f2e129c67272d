"""Proposed supersessions and a memory's versions in headless Chromium: one click applies a
proposal, and the newer memory's page then shows both versions with who decided."""

from graph.services import Link, associate_memories
from memories.models import Memory
from quality.models import Inconsistency
from tests.dashboard.browser import (
    curator_data,
    driver,
    open_page,
    pytestmark,
    severe_errors,
    sign_in,
    wait_for,
)
from tests.factories import MemoryFactory

__all__ = ["curator_data", "driver", "pytestmark"]


def test_apply_in_the_queue_then_the_timeline_shows_both_versions(driver, live_server, curator_data):
    from selenium.webdriver.common.by import By

    owner = curator_data["hub"].owner
    older = MemoryFactory(owner=owner, content="Ines lives in Ghent", days_old=60)
    newer = MemoryFactory(owner=owner, content="Ines has been living in Antwerp since April", days_old=5)
    finding = Inconsistency.objects.create(
        type="superseded",
        memory1=older,
        memory2=newer,
        severity=0.72,
        description='"Ines has been living in Antwerp since April" replaces "Ines lives in Ghent"',
        details={"confidence": 0.72, "signals": ["same subject", "residence changed", "change cue: since"]},
    )
    sign_in(driver, live_server)
    open_page(driver, f"{live_server.url}/dashboard/supersessions/", "supersessions")
    card = driver.find_element(By.ID, f"supersession-{finding.pk}")
    assert "residence changed" in card.text
    card.find_element(By.CSS_SELECTOR, "input[name=note]").send_keys("she moved in April")
    card.find_element(By.CSS_SELECTOR, "button[value=apply]").click()
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".message.success"), "no confirmation shown")
    assert Memory.objects.get(pk=older.pk).superseded_by_id == newer.pk
    assert not driver.find_elements(By.ID, f"supersession-{finding.pk}")
    open_page(driver, f"{live_server.url}/dashboard/memories/{newer.pk}/", "memory-versions")
    timeline = driver.find_element(By.ID, "memory-versions").text
    assert timeline.index("Ines lives in Ghent") < timeline.index("Ines has been living in Antwerp")
    assert "decided by curator (review) · “she moved in April”" in timeline
    assert severe_errors(driver) == []


def test_the_overview_charts_facts_superseded_per_week(driver, live_server, curator_data):
    owner = curator_data["hub"].owner
    older = MemoryFactory(owner=owner, content="The office is on Main Street", days_old=20)
    newer = MemoryFactory(owner=owner, content="The office moved to Harbour Road")
    associate_memories(owner.pk, [Link(older.pk, newer.pk, "INVALIDATED_BY", 0.9, {})])
    sign_in(driver, live_server)
    charts = open_page(driver, f"{live_server.url}/dashboard/?days=all", "overview")
    assert "chart-superseded" in {chart.get_attribute("id") for chart in charts}
    assert severe_errors(driver) == []


def test_the_empty_pages_say_what_is_empty(driver, live_server, transactional_db):
    from selenium.webdriver.common.by import By

    from tests.factories import UserFactory

    UserFactory(username="curator", password="curator-pass", is_staff=True)
    sign_in(driver, live_server)
    expected = {
        "supersessions": "No proposal to review",
        "inconsistencies": "Nothing to review",
        "jobs": "No job has finished yet",
    }
    for page, text in expected.items():
        open_page(driver, f"{live_server.url}/dashboard/{page}/", f"{page}-empty")
        assert text in driver.find_element(By.TAG_NAME, "main").text, page
    open_page(driver, f"{live_server.url}/dashboard/", "overview-empty")
    assert severe_errors(driver) == []
