import io
import json

import pytest
from django.core.management import call_command

from graph.models import Association
from memories.models import Memory
from memsite.errors import DomainError
from portability import services
from portability.models import ImportLine, ImportRun
from tests.conftest import at_once, client_for
from tests.factories import UserFactory
from tests.portability.conftest import imported

HEADER = json.dumps({"kind": "header", "format": "memsite", "version": 1})


def _file(count):
    lines = [HEADER]
    lines += [
        json.dumps({"kind": "memory", "id": f"m{n}", "content": f"Fact number {n}."}) for n in range(count)
    ]
    lines += [
        json.dumps({"kind": "association", "source": f"m{n}", "target": f"m{n + 1}", "type": "LEADS_TO"})
        for n in range(count - 1)
    ]
    return "\n".join(lines).encode()


@pytest.mark.django_db
def test_a_stopped_import_resumes_where_its_last_batch_ended(alice, monkeypatch):
    monkeypatch.setattr(services, "BATCH", 4)
    run = services.take_in(alice, io.BytesIO(_file(10)))
    services._import_batch(run.pk)  # the worker stops after one batch
    run.refresh_from_db()
    assert run.next_line == 6
    assert Memory.objects.filter(owner=alice).count() == 4

    summary = services.run_import(run.pk)

    assert summary["imported"] == 19
    assert summary["failed"] == 0
    assert Memory.objects.filter(owner=alice).count() == 10
    assert Association.objects.filter(source__owner=alice, relation_type="LEADS_TO").count() == 9
    assert not ImportRun.objects.get(pk=run.pk).lines.exists()


@pytest.mark.django_db
def test_a_dry_run_reports_what_an_import_would_do_and_writes_nothing(alice, tmp_path):
    path = tmp_path / "memories.jsonl"
    path.write_bytes(_file(3))
    out = io.StringIO()

    call_command("import_memories", str(path), owner="alice", dry_run=True, stdout=out, verbosity=0)

    assert out.getvalue() == "Would import 5 records, skipped 0, 0 failed.\n"
    assert not Memory.objects.filter(owner=alice).exists()
    assert list(alice.imports.values_list("dry_run", "imported", "status")) == [(True, 5, "succeeded")]
    assert not ImportLine.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_an_import_racing_deletes_of_the_same_owners_memories_answers_no_500():
    alice = UserFactory(username="alice")
    assert imported(alice, _file(6).decode())["failed"] == 0
    client = client_for(alice)
    memories = list(Memory.objects.filter(owner=alice).values_list("pk", flat=True))
    links = [
        json.dumps({"kind": "association", "source": f"m{n}", "target": f"m{n + 2}", "type": "RELATES_TO"})
        for n in range(4)
    ]

    def run_import():
        try:
            return imported(alice, "\n".join([HEADER, *links]))
        except DomainError as error:
            return error.status

    deletes = [lambda pk=pk: client.delete(f"/memory/{pk}").status_code for pk in memories]
    summary, *statuses = at_once([run_import, *deletes])

    assert isinstance(summary, dict)
    assert set(statuses) == {200}
    assert summary["imported"] + summary["failed"] == 4
    assert not Association.objects.filter(relation_type="RELATES_TO").exists()
