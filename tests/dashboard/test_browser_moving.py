"""The import page in headless Chromium: a file with bad lines is uploaded, its job runs, and the
page (following the job by itself) shows the failures by line number."""

import json
import threading

from memories.models import Memory
from portability.models import ImportRun
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


def test_an_uploaded_file_with_bad_lines_shows_its_failures_by_line(
    driver, live_server, curator_data, run_jobs, tmp_path
):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select

    path = tmp_path / "memories.jsonl"
    path.write_text(
        "\n".join(
            [
                json.dumps({"kind": "header", "format": "memsite", "version": 1}),
                json.dumps({"kind": "memory", "id": "m1", "content": "Imported by the browser."}),
                json.dumps({"kind": "memory", "id": "m2", "content": 42}),
                json.dumps({"kind": "gadget", "id": "g1"}),
            ]
        )
        + "\n"
    )
    sign_in(driver, live_server)
    open_page(driver, f"{live_server.url}/dashboard/moving/", "moving")
    driver.find_element(By.ID, "id_file").send_keys(str(path))
    Select(driver.find_element(By.ID, "id_owner")).select_by_visible_text("alice")
    driver.find_element(By.ID, "import-button").click()
    wait_for(lambda: driver.find_elements(By.ID, "import-progress"), "the import page did not open")
    worker = threading.Thread(target=run_jobs)
    worker.start()
    worker.join()

    rows = wait_for(
        lambda: [
            row.text
            for row in driver.find_elements(By.CSS_SELECTOR, "#import-failures tbody tr")
            if row.text[:1].isdigit()
        ],
        "the failures did not appear",
    )
    assert rows[0].startswith("3 ")
    assert "'content'" in rows[0]
    assert rows[1].startswith("4 ")
    assert "'kind' must be one of" in rows[1]
    assert driver.find_element(By.ID, "import-status").text == "succeeded"
    run = ImportRun.objects.get()
    assert (run.owner.username, run.counts["memory"]["imported"]) == ("alice", 1)
    assert list(
        Memory.objects.filter(owner=run.owner, content__startswith="Imported by").values_list(
            "content", flat=True
        )
    ) == ["Imported by the browser."]
    assert severe_errors(driver) == []
