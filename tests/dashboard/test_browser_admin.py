"""The admin's charts and review, the recall explorer and the memory browser in headless Chromium."""

import pytest
from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef

from graph.models import Association
from memories.models import Memory
from quality.models import ConsolidationRun, Inconsistency
from tests.conftest import client_for
from tests.dashboard.browser import (
    curator_data,
    driver,
    open_page,
    pytestmark,
    severe_errors,
    sign_in,
    wait_for,
)
from tests.factories import AssociationFactory, MemoryFactory

__all__ = ["curator_data", "driver", "pytestmark"]

MARKUP = '<img src=x onerror="window.__injected=1"><script>window.__injected=2</script><b>bold</b>'


@pytest.fixture(autouse=True)
def curator_may_use_the_admin(curator_data):
    curator_data["curator"].is_superuser = True
    curator_data["curator"].save(update_fields=["is_superuser"])


def chart_ids(charts):
    return {chart.get_attribute("id") for chart in charts}


def test_every_admin_page_draws_its_charts(driver, live_server, curator_data):
    from selenium.webdriver.common.by import By

    sign_in(driver, live_server)
    hub = curator_data["hub"]
    finding = Inconsistency.objects.get(type="contradiction")
    run = ConsolidationRun.objects.get()
    unlinked = Memory.objects.exclude(Exists(Association.objects.filter(source=OuterRef("pk")))).first()
    pages = {
        "admin-memories": ("/admin/memories/memory/", {"chart-histogram", "chart-tiers"}),
        "admin-memory-hub": (
            f"/admin/memories/memory/{hub.pk}/change/",
            {"chart-memory-dimensions", "chart-assessments", "chart-network"},
        ),
        "admin-memory-no-links": (
            f"/admin/memories/memory/{unlinked.pk}/change/",
            {"chart-memory-dimensions"},
        ),
        "admin-inconsistency": (f"/admin/quality/inconsistency/{finding.pk}/change/", set()),
        "admin-boosts": ("/admin/quality/qualityboost/", {"chart-boosts"}),
        "admin-run": (
            f"/admin/quality/consolidationrun/{run.pk}/change/",
            {"chart-run-phases", "chart-phase-counts"},
        ),
    }
    for name, (path, expected) in pages.items():
        charts = open_page(driver, f"{live_server.url}{path}", name)
        assert expected <= chart_ids(charts), name
        assert severe_errors(driver) == [], name
    driver.get(f"{live_server.url}/admin/memories/memory/{unlinked.pk}/change/")
    assert driver.find_element(By.ID, "no-outgoing-associations").is_displayed()


def bar_heights(driver):
    from selenium.webdriver.common.by import By

    bars = driver.find_elements(By.CSS_SELECTOR, "#chart-histogram .point path")
    return [bar.get_attribute("d") for bar in bars]


def test_the_memory_list_charts_change_when_a_filter_is_applied(driver, live_server, curator_data):
    from selenium.webdriver.common.by import By

    sign_in(driver, live_server)
    open_page(driver, f"{live_server.url}/admin/memories/memory/", "admin-memories-all")
    everything = driver.find_element(By.ID, "memory-list-count").text
    unfiltered = bar_heights(driver)
    driver.find_element(By.LINK_TEXT, "Decision").click()
    wait_for(lambda: "memory_type__exact=Decision" in driver.current_url, "the filter link did not load")
    open_page(driver, driver.current_url, "admin-memories-decisions")
    assert driver.find_element(By.ID, "memory-list-count").text != everything
    assert "1 memory" in driver.find_element(By.ID, "memory-list-count").text
    assert bar_heights(driver) != unfiltered


def test_an_inconsistency_resolved_from_its_admin_page_is_resolved_in_the_database(
    driver, live_server, curator_data
):
    from selenium.webdriver.common.by import By

    sign_in(driver, live_server)
    finding = Inconsistency.objects.get(type="contradiction")
    open_page(driver, f"{live_server.url}/admin/quality/inconsistency/{finding.pk}/change/", "admin-review")
    review = driver.find_element(By.ID, "finding-review")
    assert curator_data["online"].content in review.text
    assert curator_data["offline"].content in review.text
    review.find_element(By.CSS_SELECTOR, "button[value='link_invalidated_by:1']").click()
    # find_elements: until the answer to the click has loaded, the old page has no message list.
    wait_for(
        lambda: any("resolved" in e.text for e in driver.find_elements(By.CSS_SELECTOR, ".messagelist")),
        "no confirmation",
    )
    assert f"/admin/quality/inconsistency/{finding.pk}/change/" in driver.current_url
    finding.refresh_from_db()
    assert (finding.status, finding.resolution) == ("resolved", "link_invalidated_by")
    assert finding.resolved_by == curator_data["curator"]


def test_the_recall_explorer_shows_what_the_api_returns_and_counts_no_access(
    driver, live_server, curator_data
):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    sign_in(driver, live_server)
    owner = get_user_model().objects.get(username="alice")
    driver.get(f"{live_server.url}/dashboard/recall/")
    Select(driver.find_element(By.ID, "id_owner")).select_by_visible_text("alice")
    driver.find_element(By.ID, "recall-query").send_keys("how does the team review and deploy code")
    limit = driver.find_element(By.ID, "recall-limit")
    limit.clear()
    limit.send_keys("4")
    driver.find_element(By.NAME, "expand_relations").click()
    driver.find_element(By.ID, "recall-submit").click()
    rows = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "tr.recall-result"), "no results shown")
    shown = [row.get_attribute("data-memory-id") for row in rows]
    assert driver.find_elements(By.CSS_SELECTOR, "tr.recall-result .score-bar .segment")
    assert severe_errors(driver) == []
    assert set(Memory.objects.values_list("access_count", flat=True)) == {0}
    params = {"query": "how does the team review and deploy code", "limit": "4", "expand_relations": "true"}
    api = client_for(owner).get("/recall", params).json()
    assert shown == [result["id"] for result in api["results"]]


def test_markup_in_memory_content_is_shown_as_text_on_every_page(driver, live_server, curator_data):
    from selenium.webdriver.common.by import By

    owner = get_user_model().objects.get(username="alice")
    memory = MemoryFactory(owner=owner, content=MARKUP, tags=["markup"], memory_type="Insight")
    Inconsistency.objects.create(
        type="low_confidence", memory1=memory, severity=0.5, description=f"About {MARKUP}"
    )
    finding = Inconsistency.objects.get(memory1=memory)
    AssociationFactory(source=memory, target=curator_data["hub"], strength=0.8)
    sign_in(driver, live_server)
    pages = [
        "/admin/memories/memory/",
        f"/admin/memories/memory/{memory.pk}/change/",
        f"/admin/quality/inconsistency/{finding.pk}/change/",
        "/dashboard/memories/",
        f"/dashboard/memories/{memory.pk}/",
        f"/dashboard/recall/?owner={owner.pk}&tags=markup&why_not={memory.pk}",
        "/dashboard/inconsistencies/",
    ]
    for path in pages:
        open_page(driver, f"{live_server.url}{path}", "markup" + path.replace("/", "-")[:40])
        assert driver.execute_script("return window.__injected") is None, path
        assert "<b>bold</b>" in driver.find_element(By.TAG_NAME, "body").text, path
        for network in driver.find_elements(By.ID, "chart-network"):
            assert '<img src=x onerror="window.__' in network.text, path
