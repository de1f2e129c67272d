import gzip
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from memories.models import Memory
from portability import exports
from tests.factories import MemoryFactory
from tests.portability.conftest import exported, records

CONTENT_TYPE = "application/x-ndjson"


def _export(client, **params):
    response = client.get("/export", params)
    return response, b"".join(response.streaming_content) if response.status_code == 200 else b""


@pytest.mark.django_db
def test_an_export_streams_the_callers_memories_as_json_lines(alice_client, alice, bob):
    MemoryFactory(owner=alice, content="Alice likes tea.")
    MemoryFactory(owner=bob, content="Bob likes coffee.")

    response, body = _export(alice_client)

    assert response.status_code == 200
    assert response["Content-Type"] == CONTENT_TYPE
    found = records(body.decode())
    assert found[0]["kind"] == "header"
    assert [record["content"] for record in found if record["kind"] == "memory"] == ["Alice likes tea."]


@pytest.mark.django_db
def test_an_export_is_gzipped_when_the_client_accepts_gzip(alice_client, alice):
    MemoryFactory(owner=alice, content="Alice likes tea.")

    response = alice_client.get("/export", HTTP_ACCEPT_ENCODING="br, gzip;q=0.8")
    body = gzip.decompress(b"".join(response.streaming_content)).decode()

    assert response["Content-Encoding"] == "gzip"
    assert records(body)[1]["content"] == "Alice likes tea."


def test_an_export_is_streamed_in_pieces_of_whole_lines_of_about_the_chunk_size():
    lines = [f'{{"kind":"memory","id":"{number}"}}\n' for number in range(5000)]

    pieces = list(exports.in_chunks(iter(lines), size=4096))

    assert "".join(pieces) == "".join(lines)
    assert all(piece.endswith("\n") for piece in pieces)
    assert all(4096 <= len(piece) < 4096 + 40 for piece in pieces[:-1])


@pytest.mark.django_db
def test_nobody_exports_another_owners_memories_without_staff_rights(alice_client, bob):
    response, _ = _export(alice_client, owner="bob")

    assert response.status_code == 403
    assert response.json() == {
        "status": "error",
        "code": 403,
        "message": "Only staff may export or import another owner's memories",
    }


@pytest.mark.django_db
def test_staff_export_any_owners_memories(staff_client, bob):
    MemoryFactory(owner=bob, content="Bob likes coffee.")

    response, body = _export(staff_client, owner="bob")

    assert response.status_code == 200
    assert records(body.decode())[1]["content"] == "Bob likes coffee."


@pytest.mark.django_db
def test_an_export_with_an_unknown_kind_is_a_400(alice_client):
    response, _ = _export(alice_client, kinds="memory,recipes")

    assert response.status_code == 400
    assert response.json()["message"].startswith("Unknown kind 'recipes'")


@pytest.mark.django_db
def test_nobody_imports_into_another_owner_without_staff_rights(alice_client, alice, bob):
    MemoryFactory(owner=alice, content="Alice likes tea.")
    body = exported(alice)

    response = alice_client.post("/import?owner=bob", body, content_type=CONTENT_TYPE)

    assert response.status_code == 403
    assert not bob.imports.exists()


@pytest.mark.django_db
def test_an_import_without_a_header_is_a_400_that_keeps_nothing(alice_client, alice):
    response = alice_client.post("/import", '{"kind": "memory", "id": "1"}\n', content_type=CONTENT_TYPE)

    assert response.status_code == 400
    assert response.json()["message"] == (
        'Line 1: The first line must be the header: {"kind": "header", "format": "memsite", ...}'
    )
    assert not alice.imports.exists()


@pytest.mark.django_db
def test_an_import_larger_than_the_limit_is_a_413(alice_client, alice, settings):
    settings.MAX_REQUEST_BYTES_BY_PATH = {"/import": 2048}

    response = alice_client.post("/import", "x" * 4096, content_type=CONTENT_TYPE)

    assert response.status_code == 413
    assert not alice.imports.exists()


@pytest.mark.django_db(transaction=True)
def test_an_uploaded_file_is_imported_by_a_job_whose_result_counts_the_lines(
    alice, bob, alice_client, bob_client, run_jobs
):
    MemoryFactory(owner=bob, content="Bob likes coffee.")
    MemoryFactory(owner=bob, content="Bob bikes to work.")
    upload = SimpleUploadedFile(
        "bob.jsonl", exported(bob, kinds=("memory",)).encode(), content_type=CONTENT_TYPE
    )

    response = alice_client.post("/import", {"file": upload, "format": "memsite"}, format="multipart")

    assert response.status_code == 202
    poll, import_id = response.json()["poll"], response.json()["import_id"]
    assert alice_client.get(f"/import/{import_id}").json()["import"]["status"] == "queued"
    assert bob_client.get(f"/import/{import_id}").status_code == 404
    run_jobs()
    job = alice_client.get(poll).json()["job"]
    assert job["status"] == "succeeded"
    assert job["result"]["imported"] == 2
    assert job["result"]["failed"] == 0
    assert sorted(Memory.objects.filter(owner=alice).values_list("content", flat=True)) == [
        "Bob bikes to work.",
        "Bob likes coffee.",
    ]


@pytest.mark.django_db
def test_an_import_body_of_json_lines_answers_202_with_the_job(alice_client, alice):
    header = json.dumps({"kind": "header", "format": "memsite", "version": 1})
    line = json.dumps({"kind": "memory", "id": "1", "content": "Tea at four."})

    response = alice_client.post("/import", f"{header}\n{line}\n", content_type=CONTENT_TYPE)

    assert response.status_code == 202
    assert response.json()["job_id"] > 0
    assert alice.imports.get().total_lines == 2
