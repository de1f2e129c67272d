import numpy as np
import pytest
from django.contrib.postgres.search import SearchQuery
from django.db import DataError

from graph import age
from memories import embeddings
from memories.models import Memory
from quality.models import QualityAssessment
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


def batch(client, memories):
    return client.post("/memory/batch", {"memories": memories}, format="json")


def test_batch_of_500_is_stored_in_one_go(alice_client, alice):
    response = batch(alice_client, [{"content": f"note {i}"} for i in range(500)])
    assert response.status_code == 201
    body = response.json()
    assert body["status"] == "success"
    assert body["stored_count"] == 500
    assert body["failed_count"] == 0
    assert [item["index"] for item in body["succeeded"]] == list(range(500))
    assert Memory.objects.filter(owner=alice).count() == 500
    assert not Memory.objects.filter(quality_evaluated_at__isnull=True).exists()
    assert QualityAssessment.objects.filter(trigger="store").count() == 500
    assert (
        age.cypher("MATCH (m:Memory) WHERE m.owner = $owner RETURN count(m)", {"owner": alice.pk})[0][0]
        == 500
    )


def test_batch_of_501_is_rejected_before_anything_is_stored(alice_client):
    response = batch(alice_client, [{"content": f"n{i}"} for i in range(501)])
    assert response.status_code == 400
    assert response.json()["message"] == "Batch size limit is 500 memories per request"
    assert not Memory.objects.exists()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "'memories' must be a non-empty array"),
        ({"memories": "x"}, "'memories' must be a non-empty array"),
        ({"memories": []}, "'memories' must be a non-empty array"),
    ],
)
def test_batch_shape_errors(alice_client, body, message):
    response = alice_client.post("/memory/batch", body, format="json")
    assert response.status_code == 400
    assert response.json()["message"] == message


def test_invalid_items_are_listed_and_valid_ones_stored(alice_client):
    response = batch(
        alice_client,
        [{"content": "good one"}, {"content": ""}, "not an object", {"content": "bad", "importance": 3}],
    )
    assert response.status_code == 207
    body = response.json()
    assert body["status"] == "partial_success"
    assert body["stored_count"] == 1
    assert body["failed"] == [
        {"index": 1, "reason": "'content' is required"},
        {"index": 2, "reason": "Memory must be an object"},
        {"index": 3, "reason": "'importance' must be between 0 and 1"},
    ]
    assert list(Memory.objects.values_list("content", flat=True)) == ["good one"]


def test_repeated_content_in_a_batch_is_stored_once(alice_client):
    response = batch(alice_client, [{"content": "same"}, {"content": "SAME "}, {"content": "other"}])
    body = response.json()
    assert body["stored_count"] == 2
    assert body["duplicate_count"] == 1
    first, second, _ = body["succeeded"]
    assert second == {"index": 1, "memory_id": first["memory_id"], "duplicate": True}
    assert Memory.objects.count() == 2


def test_batch_items_keep_their_own_fields(alice_client):
    batch(alice_client, [{"content": "a decision", "type": "decision", "tags": "arch", "importance": 0.9}])
    memory = Memory.objects.get()
    assert (memory.memory_type, memory.tags, memory.importance) == ("Decision", ["arch"], 0.9)


def test_every_field_of_a_batch_item_reaches_its_row_unchanged(alice_client):
    item = {
        "content": "Zoë moved to Zürich — 東京 next",
        "type": "Preference",
        "tags": ["ünïcode", "a,b", 'quote"d', "back\\\\slash"],
        "importance": 0.25,
        "metadata": {"nested": {"list": [1, 2.5, None, "x\ty"]}, "emoji": "🙂"},
        "timestamp": "2023-05-08T13:56:00Z",
    }
    response = batch(alice_client, [item, {"content": "second", "metadata": {}}])
    assert response.status_code == 201

    memory = Memory.objects.get(content=item["content"])
    assert memory.tags == item["tags"]
    assert memory.metadata == item["metadata"]
    assert (memory.memory_type, memory.importance) == ("Preference", 0.25)
    assert memory.created_at.isoformat() == "2023-05-08T13:56:00+00:00"
    assert np.allclose(memory.embedding, embeddings.embed_many([item["content"]])[0], atol=1e-5)
    assert Memory.objects.filter(search_vector=SearchQuery("moves", config="english")).get() == memory


def test_stored_memories_come_back_as_saved_rows_in_batch_order(alice):
    memories = MemoryFactory.create_batch(5, owner=alice)

    rows = dict(Memory.objects.values_list("pk", "sequence"))
    assert [memory.sequence for memory in memories] == [rows[memory.pk] for memory in memories]
    assert [memory.sequence for memory in memories] == sorted(rows.values())
    memories[0].importance = 0.9
    memories[0].save(update_fields=["importance"])
    assert Memory.objects.get(pk=memories[0].pk).importance == 0.9


def test_a_row_the_database_refuses_fails_the_store_with_djangos_error(alice):
    with pytest.raises(DataError):
        MemoryFactory(owner=alice, content="a NUL \x00 the API would have refused")
    assert not Memory.objects.exists()
