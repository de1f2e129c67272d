import json
from collections import Counter
from html.parser import HTMLParser

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from memories.models import Memory
from portability.models import ImportRun
from tests.factories import MemoryFactory

HEADER = json.dumps({"kind": "header", "format": "memsite", "version": 1})


def _upload(*lines):
    return SimpleUploadedFile("memories.jsonl", "\n".join([HEADER, *lines]).encode() + b"\n")


@pytest.fixture
def alice_client(alice):
    """Alice signed in to the dashboard (not staff)."""
    client = Client()
    client.force_login(alice)
    return client


@pytest.fixture
def bob_client(bob):
    client = Client()
    client.force_login(bob)
    return client


@pytest.fixture
def staff_client(staff):
    client = Client()
    client.force_login(staff)
    return client


class _Ids(HTMLParser):
    """The id attributes of a page and the ids its labels point to."""

    def __init__(self, html):
        super().__init__()
        self.ids, self.label_targets = [], []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if "id" in attributes:
            self.ids.append(attributes["id"])
        if tag == "label" and "for" in attributes:
            self.label_targets.append(attributes["for"])


def _exported(response):
    return [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]


@pytest.mark.django_db
def test_the_export_and_import_page_is_linked_from_the_navigation(alice_client, staff_client):
    response = alice_client.get("/dashboard/moving/")

    assert response.status_code == 200
    assert b'href="/dashboard/moving/" class="active"' in response.content
    assert b'id="export-button"' in response.content
    assert b'href="/dashboard/moving/"' in staff_client.get("/dashboard/").content


@pytest.mark.django_db
def test_the_export_and_import_forms_share_no_html_id_and_every_label_finds_its_field(
    alice_client, staff_client
):
    refused = staff_client.post(
        "/dashboard/import/",
        {"file": SimpleUploadedFile("bad.jsonl", b"{}\n"), "owner": "alice", "format": "memsite"},
    )
    pages = {
        "curator": alice_client.get("/dashboard/moving/"),
        "staff": staff_client.get("/dashboard/moving/"),
        "staff, a refused import": refused,
    }

    for name, response in pages.items():
        page = _Ids(response.content.decode())
        repeated = [value for value, count in Counter(page.ids).items() if count > 1]
        assert repeated == [], name
        assert set(page.label_targets) <= set(page.ids), name
    staff_page = _Ids(pages["staff"].content.decode())
    assert {"id_export_owner", "id_owner"} <= set(staff_page.ids)


@pytest.mark.django_db
def test_a_curator_exports_their_own_memories_from_the_page(alice_client, alice, bob):
    MemoryFactory(owner=alice, content="Alice likes tea.")
    MemoryFactory(owner=bob, content="Bob likes coffee.")

    response = alice_client.get("/dashboard/export/", {"owner": "alice"})

    contents = [record["content"] for record in _exported(response) if record["kind"] == "memory"]
    assert contents == ["Alice likes tea."]


@pytest.mark.django_db
def test_a_curator_who_is_not_staff_cannot_export_another_owners_memories(alice_client, bob):
    MemoryFactory(owner=bob, content="Bob likes coffee.")

    response = alice_client.get("/dashboard/export/", {"owner": "bob"})

    assert response.status_code == 400
    assert b"Bob likes coffee." not in response.content


@pytest.mark.django_db
def test_staff_export_any_owners_memories_from_the_page(staff_client, bob):
    MemoryFactory(owner=bob, content="Bob likes coffee.")

    response = staff_client.get("/dashboard/export/", {"owner": "bob"})

    assert [r["content"] for r in _exported(response) if r["kind"] == "memory"] == ["Bob likes coffee."]


@pytest.mark.django_db
def test_a_curator_who_is_not_staff_cannot_import_into_another_owner(alice_client, bob):
    line = json.dumps({"kind": "memory", "id": "1", "content": "Tea."})

    response = alice_client.post(
        "/dashboard/import/", {"file": _upload(line), "owner": "bob", "format": "memsite"}
    )

    assert response.status_code == 400
    assert not ImportRun.objects.exists()


@pytest.mark.django_db
def test_an_import_started_from_the_page_is_queued_and_shown(alice_client, alice):
    line = json.dumps({"kind": "memory", "id": "1", "content": "Tea."})

    response = alice_client.post(
        "/dashboard/import/", {"file": _upload(line), "owner": "alice", "format": "memsite"}, follow=True
    )

    run = ImportRun.objects.get()
    assert (run.owner, run.status, run.total_lines, run.dry_run) == (alice, "queued", 2, False)
    assert response.redirect_chain[-1][0] == f"/dashboard/imports/{run.pk}/"
    assert b'data-url="/dashboard/imports/' in response.content


@pytest.mark.django_db
def test_a_file_without_a_header_is_refused_on_the_page_with_its_reason(alice_client):
    upload = SimpleUploadedFile("bad.jsonl", b'{"kind": "memory"}\n')

    response = alice_client.post(
        "/dashboard/import/", {"file": upload, "owner": "alice", "format": "memsite"}
    )

    assert response.status_code == 400
    assert b"The first line must be the header" in response.content
    assert not ImportRun.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_finished_import_page_shows_counts_per_kind_and_failures_by_line(alice_client, alice, run_jobs):
    lines = [json.dumps({"kind": "memory", "id": "1", "content": "Tea."}), "not json"]
    alice_client.post("/dashboard/import/", {"file": _upload(*lines), "owner": "alice", "format": "memsite"})
    run_jobs()
    run = ImportRun.objects.get()

    page = alice_client.get(f"/dashboard/imports/{run.pk}/").content.decode()
    progress = alice_client.get(f"/dashboard/imports/{run.pk}/progress/").json()

    assert "data-url" not in page
    assert '<td class="num">3</td><td>Line is not valid JSON</td>' in page
    assert progress["counts"]["memory"] == {"imported": 1, "skipped": 0, "failed": 0}
    assert Memory.objects.filter(owner=alice).count() == 1


@pytest.mark.django_db
def test_nobody_sees_another_owners_import(alice_client, bob_client):
    alice_client.post(
        "/dashboard/import/",
        {
            "file": _upload(json.dumps({"kind": "memory", "id": "1", "content": "Tea."})),
            "owner": "alice",
            "format": "memsite",
        },
    )
    run = ImportRun.objects.get()

    assert bob_client.get(f"/dashboard/imports/{run.pk}/").status_code == 404
    assert bob_client.get(f"/dashboard/imports/{run.pk}/progress/").status_code == 404
