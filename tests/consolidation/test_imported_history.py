"""Retention counts inactivity from when a memory entered the store, not from its event time."""

from datetime import UTC, datetime

import pytest

from memories.models import Memory
from quality.consolidation import run_consolidation

pytestmark = pytest.mark.django_db
EVENT = "2023-03-14T09:30:00Z"


def test_a_memory_imported_with_a_2023_timestamp_is_not_archived_by_the_next_run(alice_client):
    stored = alice_client.post(
        "/memory",
        {"content": "We chose PostgreSQL for the billing service.", "timestamp": EVENT},
        format="json",
    ).json()

    run = run_consolidation(dry_run=False)

    memory = Memory.objects.get(pk=stored["memory_id"])
    assert run.phases["retention"]["archived"] == 0
    assert memory.archived_at is None
    assert memory.created_at == datetime(2023, 3, 14, 9, 30, tzinfo=UTC)
    assert memory.entered_at > memory.created_at


def test_recall_still_filters_on_the_event_time(alice_client):
    alice_client.post(
        "/memory", {"content": "Kickoff of the billing project.", "timestamp": EVENT}, format="json"
    )

    inside = alice_client.get(
        "/recall", {"start": "2023-03-01T00:00:00Z", "end": "2023-03-31T00:00:00Z"}
    ).json()
    after = alice_client.get("/recall", {"start": "2024-01-01T00:00:00Z"}).json()

    assert [result["memory"]["content"] for result in inside["results"]] == [
        "Kickoff of the billing project."
    ]
    assert after["results"] == []
    assert inside["results"][0]["memory"]["entered_at"] > inside["results"][0]["memory"]["created_at"]
