from functools import partial

import pytest

from memories import services
from memories.models import Memory
from tests.conftest import at_once, client_for


@pytest.mark.django_db(transaction=True)
def test_concurrent_identical_stores_create_one_memory(alice):
    """Deletes its memory at the end: the flush after a transactional test leaves graph vertices."""
    clients = [client_for(alice) for _ in range(4)]
    body = {"content": "Race to the same memory"}
    responses = at_once([partial(client.post, "/memory", body, format="json") for client in clients])
    assert sorted(response.status_code for response in responses) == [200, 200, 200, 201]
    assert len({response.json()["memory_id"] for response in responses}) == 1
    assert Memory.objects.filter(owner=alice).count() == 1
    services.delete_memory(Memory.objects.get(owner=alice))


@pytest.mark.django_db(transaction=True)
def test_racing_batches_with_shared_content_store_it_once_each_in_its_order(alice):
    """Deletes its memories at the end: the flush after a transactional test leaves graph vertices."""
    batches = [
        [f"Racing batch {name} note {n}" for n in range(40)] + ["A note both batches carry"]
        for name in ("one", "two")
    ]
    bodies = [{"memories": [{"content": content} for content in contents]} for contents in batches]
    responses = at_once(
        [partial(client_for(alice).post, "/memory/batch", body, format="json") for body in bodies]
    )

    assert sorted(response.status_code for response in responses) == [201, 201]
    assert sorted(response.json()["duplicate_count"] for response in responses) == [0, 1]
    assert Memory.objects.filter(owner=alice).count() == 81
    for contents in batches:
        rows = dict(Memory.objects.filter(content__in=contents[:40]).values_list("content", "sequence"))
        assert [rows[content] for content in contents[:40]] == sorted(rows.values())
    for memory in Memory.objects.filter(owner=alice):
        services.delete_memory(memory)
