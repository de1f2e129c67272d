import pytest

from memories.models import Memory
from tests.memories.conftest import store, stored_id

pytestmark = pytest.mark.django_db


def test_identical_content_answers_200_with_the_existing_id(alice_client):
    first = stored_id(alice_client, "The staging server runs Debian 12")
    response = store(alice_client, "The staging server runs Debian 12")
    assert response.status_code == 200
    assert response.json()["memory_id"] == first
    assert response.json()["duplicate"] is True
    assert Memory.objects.count() == 1


def test_case_and_whitespace_differences_are_the_same_content(alice_client):
    first = stored_id(alice_client, "The staging server runs Debian 12")
    response = store(alice_client, "  the STAGING   server runs debian 12 ")
    assert response.json() == response.json() | {"memory_id": first, "duplicate": True}


def test_same_content_of_another_user_is_stored_separately(alice_client, bob_client):
    first = stored_id(alice_client, "Lunch is at noon")
    response = store(bob_client, "Lunch is at noon")
    assert response.status_code == 201
    assert response.json()["memory_id"] != first


def test_archived_memory_does_not_block_storing_it_again(alice_client):
    first = stored_id(alice_client, "Lunch is at noon")
    alice_client.post(f"/memory/{first}/archive")
    response = store(alice_client, "Lunch is at noon")
    assert response.status_code == 201
    assert response.json()["memory_id"] != first


def test_content_hash_is_sha256_hex(alice_client):
    stored_id(alice_client, "Lunch is at noon")
    assert len(Memory.objects.get().content_hash) == 64
