import threading

import pytest
from django.db import connection

from memories import services
from memories.models import Memory
from tests.conftest import client_for


@pytest.mark.django_db(transaction=True)
def test_concurrent_identical_stores_create_one_memory(alice):
    """Deletes its memory at the end: the flush after a transactional test leaves graph vertices."""
    clients = [client_for(alice) for _ in range(4)]
    barrier = threading.Barrier(len(clients))
    responses = []

    def store(client):
        barrier.wait()
        try:
            responses.append(client.post("/memory", {"content": "Race to the same memory"}, format="json"))
        finally:
            connection.close()

    threads = [threading.Thread(target=store, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(response.status_code for response in responses) == [200, 200, 200, 201]
    assert len({response.json()["memory_id"] for response in responses}) == 1
    assert Memory.objects.filter(owner=alice).count() == 1
    services.delete_memory(Memory.objects.get(owner=alice))
