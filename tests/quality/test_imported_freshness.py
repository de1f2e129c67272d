"""A memory imported with an old timestamp keeps that time as created_at but is as fresh as its
entry: timeliness and the `outdated` rule count from the later of its last content change, its
last corroboration and its entry."""

import pytest

from memories.models import Memory
from quality.detection import detect_inconsistencies
from quality.models import Inconsistency

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("timestamp", ["2023-05-08T10:00:00Z", "1000-01-01T00:00:00Z"])
def test_an_imported_memory_is_not_born_stale(alice_client, alice, timestamp):
    response = alice_client.post(
        "/memory",
        {"content": "We moved the billing service to PostgreSQL", "timestamp": timestamp},
        format="json",
    )

    memory = Memory.objects.get(pk=response.json()["memory_id"])
    assert memory.created_at.year in (2023, 1000)
    assert memory.updated_at == memory.provenance_updated_at == memory.entered_at
    assert memory.quality_timeliness > 0.9


def test_an_import_of_old_turns_files_no_outdated_finding(alice_client, alice):
    turns = [
        {"content": f"Turn {index} of an old conversation", "timestamp": "2023-05-08T10:00:00Z"}
        for index in range(30)
    ]
    assert alice_client.post("/memory/batch", {"memories": turns}, format="json").status_code == 201

    detect_inconsistencies(alice)

    assert not Inconsistency.objects.filter(type="outdated").exists()
