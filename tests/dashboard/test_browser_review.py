"""The review queue in headless Chromium: bulk actions act on exactly the ticked findings after a
confirmation, a contradiction reclassified as a duplicate can be merged, and filters stay in the
address."""

from quality.models import Inconsistency
from quality.services import detect_for_owner
from tests.dashboard.browser import (
    curator_data,
    driver,
    open_page,
    pytestmark,
    save_full_page,
    severe_errors,
    sign_in,
    wait_for,
)
from tests.factories import MemoryFactory

__all__ = ["curator_data", "driver", "pytestmark"]


def test_a_bulk_dismiss_asks_then_changes_exactly_the_ticked_findings(driver, live_server, curator_data):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select

    owner = curator_data["hub"].owner
    for content in ("Perhaps the cache is warm", "Maybe the build is green"):
        MemoryFactory(owner=owner, content=content, confidence=0.2)
    detect_for_owner(owner)
    sign_in(driver, live_server)
    open_findings = list(Inconsistency.objects.filter(status="open").order_by("pk"))
    assert len(open_findings) == 3
    ticked, left = open_findings[0], open_findings[1:]
    open_page(driver, f"{live_server.url}/dashboard/inconsistencies/", "inconsistencies")
    driver.find_element(By.CSS_SELECTOR, f"#finding-{ticked.pk} input[name=ids]").click()
    Select(driver.find_element(By.CSS_SELECTOR, "#bulk select[name=action]")).select_by_value("dismiss")
    driver.find_element(By.CSS_SELECTOR, "#bulk input[name=note]").send_keys("checked by hand")
    driver.find_element(By.CSS_SELECTOR, "#bulk button[type=submit]").click()
    wait_for(lambda: driver.find_elements(By.ID, "bulk-confirm"), "no confirmation page")
    assert "Dismiss: 1 finding?" in driver.find_element(By.TAG_NAME, "h1").text
    save_full_page(driver, "inconsistencies-bulk-confirm")
    assert Inconsistency.objects.get(pk=ticked.pk).status == "open"
    driver.find_element(By.ID, "bulk-confirm").click()
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".message.success"), "no confirmation shown")
    assert (
        "Dismiss: 1 of 1 selected findings." in driver.find_element(By.CSS_SELECTOR, ".message.success").text
    )
    ticked.refresh_from_db()
    assert (ticked.status, ticked.note) == ("dismissed", "checked by hand")
    assert {f.status for f in Inconsistency.objects.filter(pk__in=[f.pk for f in left])} == {"open"}
    assert severe_errors(driver) == []


def test_a_contradiction_reclassified_in_the_page_can_then_be_merged(driver, live_server, curator_data):
    from selenium.webdriver.common.by import By

    sign_in(driver, live_server)
    finding = Inconsistency.objects.get(type="contradiction")
    open_page(
        driver, f"{live_server.url}/dashboard/inconsistencies/?type=contradiction", "inconsistencies-type"
    )
    card = driver.find_element(By.ID, f"finding-{finding.pk}")
    card.find_element(By.CSS_SELECTOR, "button[value='duplicate']").click()
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".message.success"), "no confirmation shown")
    assert "type=contradiction" in driver.current_url
    driver.get(f"{live_server.url}/dashboard/inconsistencies/?type=duplicate")
    card = driver.find_element(By.ID, f"finding-{finding.pk}")
    assert "reclassified from contradiction" in card.text
    card.find_element(By.CSS_SELECTOR, "button[value='merge:1']").click()
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".message.success"), "no confirmation shown")
    finding.refresh_from_db()
    assert (finding.type, finding.status, finding.resolution) == ("duplicate", "resolved", "merge")
    assert severe_errors(driver) == []


def test_the_owner_filter_stays_in_the_address_and_in_every_tab(driver, live_server, curator_data):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select

    other = MemoryFactory(content="Perhaps the nightly backup ran", confidence=0.1).owner
    detect_for_owner(other)
    sign_in(driver, live_server)
    open_page(driver, f"{live_server.url}/dashboard/inconsistencies/", "inconsistencies-all-owners")
    Select(driver.find_element(By.ID, "id_owner")).select_by_visible_text(other.username)
    driver.find_element(By.CSS_SELECTOR, "#finding-filters button[type=submit]").click()
    wait_for(lambda: f"owner={other.pk}" in driver.current_url, "the owner is not in the address")
    cards = driver.find_elements(By.CSS_SELECTOR, "article.finding")
    assert [card.text.count("Perhaps the nightly backup ran") for card in cards] == [1]
    driver.find_element(By.LINK_TEXT, "All types").click()
    assert f"owner={other.pk}" in driver.current_url
    open_page(driver, driver.current_url, "inconsistencies-one-owner")
    assert severe_errors(driver) == []
