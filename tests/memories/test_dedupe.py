import pytest

from memories.models import Memory
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


def test_identical_content_answers_200_with_the_existing_id(alice, alice_client):
    first = str(MemoryFactory(owner=alice, content="The staging server runs Debian 12").pk)
    response = alice_client.post("/memory", {"content": "The staging server runs Debian 12"}, format="json")
    assert response.status_code == 200
    assert response.json()["memory_id"] == first
    assert response.json()["duplicate"] is True
    assert Memory.objects.count() == 1


def test_case_and_whitespace_differences_are_the_same_content(alice, alice_client):
    first = str(MemoryFactory(owner=alice, content="The staging server runs Debian 12").pk)
    response = alice_client.post(
        "/memory", {"content": "  the STAGING   server runs debian 12 "}, format="json"
    )
    assert response.json() == response.json() | {"memory_id": first, "duplicate": True}


def test_same_content_of_another_user_is_stored_separately(alice, alice_client, bob_client):
    first = str(MemoryFactory(owner=alice, content="Lunch is at noon").pk)
    response = bob_client.post("/memory", {"content": "Lunch is at noon"}, format="json")
    assert response.status_code == 201
    assert response.json()["memory_id"] != first


def test_archived_memory_does_not_block_storing_it_again(alice, alice_client):
    first = str(MemoryFactory(owner=alice, content="Lunch is at noon").pk)
    alice_client.post(f"/memory/{first}/archive")
    response = alice_client.post("/memory", {"content": "Lunch is at noon"}, format="json")
    assert response.status_code == 201
    assert response.json()["memory_id"] != first


def test_content_hash_is_sha256_hex(alice):
    MemoryFactory(owner=alice, content="Lunch is at noon")
    assert len(Memory.objects.get().content_hash) == 64
