import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from memories.models import Memory
from portability.models import ImportRun
from portability.queries import import_progress
from tests.portability.conftest import exported, imported

HEADER = json.dumps({"kind": "header", "format": "memsite", "version": 1})


def _lines(*records):
    return "\n".join([HEADER, *(json.dumps(record) for record in records)]) + "\n"


@pytest.mark.django_db
def test_an_import_counts_imported_skipped_and_failed_records_per_kind(alice, bob, alice_data):
    text = exported(alice)

    first = imported(bob, text)
    again = imported(bob, text)

    assert first["counts"]["memory"] == {"imported": 5, "skipped": 0, "failed": 0}
    assert first["counts"]["association"] == {"imported": 3, "skipped": 0, "failed": 0}
    assert first["counts"]["finding"]["imported"] == 1
    assert first["counts"]["boost"]["imported"] == 1
    assert again["counts"]["memory"] == {"imported": 0, "skipped": 5, "failed": 0}
    assert again["counts"]["association"]["skipped"] == 3
    assert again["counts"]["boost"]["skipped"] == 1
    assert sum(kind["imported"] for kind in first["counts"].values()) == first["imported"]


@pytest.mark.django_db
def test_a_failed_line_counts_for_its_kind_and_an_unreadable_one_only_in_all(alice):
    summary = imported(
        alice,
        _lines(
            {"kind": "memory", "id": "1", "content": "Tea at four."},
            {"kind": "memory", "id": "2", "content": 7},
            {"kind": "association", "source": "1", "target": "9", "type": "RELATES_TO"},
        )
        + "not json\n",
    )

    assert summary["counts"]["memory"] == {"imported": 1, "skipped": 0, "failed": 1}
    assert summary["counts"]["association"] == {"imported": 0, "skipped": 0, "failed": 1}
    assert summary["failed"] == 3
    assert [failure["line"] for failure in summary["failures"]] == [3, 4, 5]


@pytest.mark.django_db(transaction=True)
def test_a_dry_run_upload_reports_its_counts_and_writes_nothing(alice, alice_client, run_jobs):
    upload = SimpleUploadedFile("a.jsonl", _lines({"kind": "memory", "id": "1", "content": "Tea."}).encode())

    response = alice_client.post("/import", {"file": upload, "dry_run": "true"}, format="multipart")
    run_jobs()

    run = ImportRun.objects.get(pk=response.json()["import_id"])
    assert (run.dry_run, run.status, run.imported) == (True, "succeeded", 1)
    assert run.counts["memory"]["imported"] == 1
    assert not Memory.objects.filter(owner=alice).exists()
    assert not run.lines.exists()


@pytest.mark.django_db
def test_a_waiting_import_job_shows_its_progress(alice, alice_client):
    body = _lines({"kind": "memory", "id": "1", "content": "Tea."})
    response = alice_client.post("/import", body, content_type="application/x-ndjson")

    job = alice_client.get(response.json()["poll"]).json()["job"]

    assert job["status"] == "todo"
    assert job["progress"]["status"] == "queued"
    assert (job["progress"]["lines"], job["progress"]["done_lines"]) == (2, 1)
    assert "failures" not in job["progress"]


@pytest.mark.django_db
def test_the_progress_of_a_running_import_grows_batch_by_batch(alice):
    from portability import services

    text = _lines(*({"kind": "memory", "id": str(n), "content": f"Fact {n}."} for n in range(300)))
    run = services.take_in(alice, text.splitlines(keepends=True))
    seen = []

    services.run_import(run.pk, progress=lambda _: seen.append(import_progress({"run_id": run.pk})))

    assert [entry["counts"]["memory"]["imported"] for entry in seen] == [256, 300]
    assert seen[0]["status"] == "running"
