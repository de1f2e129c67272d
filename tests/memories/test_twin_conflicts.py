"""PATCH and restore apply the duplicate rule: no two live memories of an owner share content."""

import uuid

import pytest

from memories import services
from memories.models import Memory

pytestmark = pytest.mark.django_db


def store(client, content):
    return client.post("/memory", {"content": content}, format="json").json()["memory_id"]


def test_patching_content_to_another_live_memorys_text_answers_409_naming_it(alice_client):
    first = store(alice_client, "The deploy runs on Fridays.")
    second = store(alice_client, "The deploy runs on Mondays.")

    response = alice_client.patch(
        f"/memory/{second}", {"content": "the deploy  runs on FRIDAYS."}, format="json"
    )

    assert response.status_code == 409
    assert response.json()["status"] == "error"
    assert first in response.json()["message"]
    assert Memory.objects.get(pk=second).content == "The deploy runs on Mondays."


def test_patching_a_memory_to_its_own_text_in_other_case_is_allowed(alice_client):
    memory = store(alice_client, "The deploy runs on Fridays.")

    response = alice_client.patch(
        f"/memory/{memory}", {"content": "THE DEPLOY RUNS ON FRIDAYS."}, format="json"
    )

    assert response.status_code == 200


def test_patching_to_the_text_of_an_archived_memory_or_of_another_user_is_allowed(alice_client, bob_client):
    archived = store(alice_client, "Lunch is at noon.")
    alice_client.post(f"/memory/{archived}/archive")
    store(bob_client, "Standup is at nine.")
    memory = store(alice_client, "Something else.")

    assert (
        alice_client.patch(f"/memory/{memory}", {"content": "Lunch is at noon."}, format="json").status_code
        == 200
    )
    assert (
        alice_client.patch(f"/memory/{memory}", {"content": "Standup is at nine."}, format="json").status_code
        == 200
    )


def test_restoring_a_memory_whose_text_was_stored_again_answers_409_naming_the_new_one(alice_client):
    old = store(alice_client, "The office moved to Lyon.")
    alice_client.post(f"/memory/{old}/archive")
    new = store(alice_client, "The office moved to Lyon.")

    response = alice_client.post(f"/memory/{old}/restore")

    assert new != old
    assert response.status_code == 409
    assert new in response.json()["message"]
    assert Memory.objects.get(pk=old).archived_at is not None


def test_restoring_a_memory_without_a_live_twin_succeeds(alice_client):
    memory = store(alice_client, "The office moved to Lyon.")
    alice_client.post(f"/memory/{memory}/archive")

    response = alice_client.post(f"/memory/{memory}/restore")

    assert response.status_code == 200
    assert Memory.objects.get(pk=memory).archived_at is None


def test_a_bulk_restore_brings_back_no_twin_of_a_live_memory(alice, alice_client):
    archived = store(alice_client, "Standup is at nine.")
    alice_client.post(f"/memory/{archived}/archive")
    live = store(alice_client, "Standup is at nine.")
    other = store(alice_client, "Retro is on Thursday.")
    alice_client.post(f"/memory/{other}/archive")

    restored, refused = services.restore_memories(Memory.objects.filter(owner=alice))

    assert (restored, refused) == (1, 1)
    assert set(Memory.objects.filter(archived_at__isnull=True).values_list("pk", flat=True)) == {
        uuid.UUID(live),
        uuid.UUID(other),
    }
