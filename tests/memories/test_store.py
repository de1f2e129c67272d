import pytest

from memories.models import Memory

pytestmark = pytest.mark.django_db


def test_store_answers_201_with_id_type_and_quality(alice_client, alice):
    body = {"content": "  Prefers dark roast coffee in the morning  ", "tags": ["Coffee", " drinks "]}
    response = alice_client.post("/memory", body, format="json")
    assert response.status_code == 201
    body = response.json()
    assert body["status"] == "success"
    assert body["duplicate"] is False
    assert body["type"] == "Memory"
    assert body["tags"] == ["coffee", "drinks"]
    assert 0 < body["quality_score"] <= 1
    assert "query_time_ms" in body
    memory = Memory.objects.get(pk=body["memory_id"])
    assert memory.owner == alice
    assert memory.content == "Prefers dark roast coffee in the morning"
    assert len(memory.embedding) == 384
    assert memory.quality_evaluated_at is not None
