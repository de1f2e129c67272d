"""Concurrent writes on the same memories: the losers get 404 or 409, and table and graph agree."""

from collections import Counter

import pytest
from django.core.management import call_command

from graph import age
from memories import services
from memories.models import Memory
from tests.conftest import client_for
from tests.memories.conftest import race

ROUNDS = 8
MEMORIES_PER_ROUND = 3


def _operations(a, b, c):
    """Requests that race on memory `a` (deleted) and its neighbours."""
    return [
        ("delete", f"/memory/{a}", None),
        ("patch", f"/memory/{a}", {"importance": 0.9, "tags": ["raced"]}),
        ("post", f"/memory/{a}/corroborate", {"source_id": "witness"}),
        ("post", "/associate", {"memory1_id": a, "memory2_id": b, "type": "RELATES_TO", "strength": 0.7}),
        ("post", "/associate", {"memory1_id": c, "memory2_id": a, "type": "LEADS_TO", "strength": 0.6}),
        ("post", f"/memory/{a}/archive", None),
        ("patch", f"/memory/{b}", {"importance": 0.2}),
        ("post", f"/memory/{b}/corroborate", {"source_id": "second witness"}),
        ("post", "/associate", {"memory1_id": b, "memory2_id": c, "type": "RELATES_TO", "strength": 0.5}),
    ]


@pytest.mark.django_db(transaction=True)
def test_racing_deletes_patches_links_and_corroborations_never_fail_and_leave_no_drift(alice):
    """Deletes its memories at the end: the flush after a transactional test leaves graph vertices."""
    contents = [f"Shared memory {n} about the release train." for n in range(ROUNDS * MEMORIES_PER_ROUND)]
    stored = client_for(alice).post(
        "/memory/batch", {"memories": [{"content": c} for c in contents]}, format="json"
    )
    ids = [str(item["memory_id"]) for item in stored.json()["succeeded"]]
    clients = [client_for(alice) for _ in _operations("a", "b", "c")]
    statuses = Counter()
    try:
        for round_ in range(ROUNDS):
            triple = ids[round_ * MEMORIES_PER_ROUND : (round_ + 1) * MEMORIES_PER_ROUND]
            statuses.update(race(clients, _operations(*triple)))

        assert set(statuses) <= {200, 201, 404, 409}, statuses
        assert statuses[404] > 0
        assert not age.differences(10)
        call_command("graph_check")
        assert not Memory.objects.filter(pk__in=ids[::MEMORIES_PER_ROUND]).exists()
    finally:
        for memory in Memory.objects.filter(owner=alice):
            services.delete_memory(memory)


@pytest.mark.django_db(transaction=True)
def test_racing_archives_and_restores_leave_recall_agreeing_with_the_row(alice):
    """Archiving moves a memory out of the live indexes and restoring brings it back; racing both
    on one memory must leave recall finding it exactly when it is live."""
    client = client_for(alice)
    content = "The lighthouse keeper logs the tide at dawn"
    memory_id = str(client.post("/memory", {"content": content}, format="json").json()["memory_id"])
    clients = [client_for(alice) for _ in range(4)]
    operations = [
        ("post", f"/memory/{memory_id}/archive", None),
        ("post", f"/memory/{memory_id}/restore", None),
        ("post", f"/memory/{memory_id}/archive", None),
        ("post", f"/memory/{memory_id}/restore", None),
    ]
    try:
        statuses = Counter()
        for _ in range(ROUNDS):
            statuses.update(race(clients, operations))
            live = Memory.objects.get(pk=memory_id).archived_at is None
            found = client.get("/recall", {"query": "lighthouse tide", "limit": 5}).json()["results"]
            assert (memory_id in [result["memory"]["id"] for result in found]) == live
        assert set(statuses) <= {200, 409}, statuses
    finally:
        for memory in Memory.objects.filter(owner=alice):
            services.delete_memory(memory)
