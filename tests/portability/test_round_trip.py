import json
from pathlib import Path

import numpy as np
import pytest
from jsonschema import Draft202012Validator

from graph.models import Association
from memories import embeddings
from memories.models import Memory
from portability.models import ImportedRecord
from quality.models import Inconsistency, QualityBoost
from tests.factories import UserFactory
from tests.portability.conftest import exported, imported, records

pytestmark = pytest.mark.django_db

COMPARED = [
    "content", "tags", "type", "importance", "metadata", "source_type", "source_id", "is_explicit",
    "corroborating_sources", "created_at", "updated_at", "valid_from", "valid_until", "protected",
    "archived_at", "archive_reason", "content_hash",
]  # fmt: skip


def _by_content(text):
    return {record["content"]: record for record in records(text) if record["kind"] == "memory"}


def _without_ids(text, kind):
    """The records of `kind` with their memory ids replaced by the memories' contents."""
    contents = {record["id"]: record["content"] for record in records(text) if record["kind"] == "memory"}
    found = []
    for record in records(text):
        if record["kind"] == kind:
            record = dict(record)
            for name in ("source", "target", "memory1", "memory2", "memory"):
                if record.get(name):
                    record[name] = contents[record[name]]
            record.pop("id", None)
            record.pop("created_at", None) if kind == "association" else None
            found.append(record)
    return sorted(found, key=repr)


def test_a_round_trip_into_a_fresh_owner_keeps_everything_but_the_ids(alice, alice_data):
    text = exported(alice)
    carol = UserFactory(username="carol")

    summary = imported(carol, text)

    assert summary["failed"] == 0, summary["failures"]
    again = exported(carol)
    before, after = _by_content(text), _by_content(again)
    assert set(before) == set(after)
    for content, record in before.items():
        assert {name: after[content][name] for name in COMPARED} == {name: record[name] for name in COMPARED}
        assert after[content]["id"] != record["id"]
    for kind in ("association", "finding", "boost"):
        assert _without_ids(again, kind) == _without_ids(text, kind)


def test_an_imported_supersession_is_derived_again_from_its_association(alice, alice_data):
    carol = UserFactory(username="carol")
    imported(carol, exported(alice))

    old = Memory.objects.get(owner=carol, content="The office is in Lyon.")
    new = Memory.objects.get(owner=carol, content="The office moved to Grenoble.")
    assert old.superseded_by_id == new.pk
    assert old.valid_until == new.valid_from


def test_imported_memories_get_the_embedding_a_fresh_store_computes(alice, alice_data):
    carol = UserFactory(username="carol")
    imported(carol, exported(alice))

    memory = Memory.objects.get(owner=carol, content="Alice deploys on Fridays.")
    assert np.allclose(
        np.array(memory.embedding), np.array(embeddings.embed("Alice deploys on Fridays.")), atol=1e-5
    )


def test_importing_the_same_file_twice_adds_nothing(alice, alice_data):
    text = exported(alice)
    carol = UserFactory(username="carol")
    first = imported(carol, text)
    counts = (
        Memory.objects.filter(owner=carol).count(),
        Association.objects.filter(source__owner=carol).count(),
        Inconsistency.objects.filter(memory1__owner=carol).count(),
        QualityBoost.objects.filter(memory__owner=carol).count(),
    )

    second = imported(carol, text)

    assert first["imported"] > 0
    assert second["imported"] == 0
    assert second["failed"] == 0
    assert second["skipped"] == first["imported"] + first["skipped"]
    assert counts == (
        Memory.objects.filter(owner=carol).count(),
        Association.objects.filter(source__owner=carol).count(),
        Inconsistency.objects.filter(memory1__owner=carol).count(),
        QualityBoost.objects.filter(memory__owner=carol).count(),
    )


def test_an_export_filtered_by_tag_holds_only_links_between_exported_memories(alice, alice_data):
    found = records(exported(alice, tags=["deploy"]))

    assert [record["content"] for record in found if record["kind"] == "memory"] == [
        "Alice deploys on Fridays."
    ]
    assert not [record for record in found if record["kind"] in ("association", "finding")]
    assert [record["kind"] for record in found].count("boost") == 1


def test_imported_records_remember_the_file_ids_they_came_from(alice, alice_data):
    carol = UserFactory(username="carol")
    imported(carol, exported(alice))

    record = ImportedRecord.objects.get(owner=carol, kind="memory", source_id=str(alice_data["first"].pk))
    assert record.memory.content == "Alice deploys on Fridays."


def test_every_exported_line_follows_the_documented_schema(alice, alice_data):
    schema = json.loads((Path(__file__).parents[2] / "docs" / "export-format.schema.json").read_text())
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)

    found = records(exported(alice))

    assert {record["kind"] for record in found} == {
        "header",
        "memory",
        "association",
        "finding",
        "boost",
        "assessment",
    }
    for record in found:
        assert not list(validator.iter_errors(record)), record
