import numpy as np
import pytest

from graph import age
from memories.models import Memory
from quality.models import QualityAssessment

pytestmark = pytest.mark.django_db


def test_get_returns_the_memory_with_quality_and_provenance(alice_client, alice_memory):
    response = alice_client.get(f"/memory/{alice_memory}")
    assert response.status_code == 200
    memory = response.json()["memory"]
    assert memory["id"] == alice_memory
    assert memory["content"] == "Alice keeps her bicycle in the garden shed"
    assert memory["type"] == "Memory"
    assert set(memory["quality"]) >= {
        "overall",
        "score",
        "accuracy",
        "completeness",
        "consistency",
        "timeliness",
        "relevance",
        "evaluated_at",
        "boost_applied",
        "original_quality_before_boost",
    }
    assert memory["provenance"]["source_type"] == "user_input"
    assert memory["provenance"]["confidence"] == pytest.approx(0.7)


ENDPOINTS = [
    ("get", ""),
    ("patch", ""),
    ("delete", ""),
    ("post", "/corroborate"),
    ("post", "/archive"),
    ("post", "/restore"),
]


@pytest.mark.parametrize(("method", "suffix"), ENDPOINTS)
def test_invalid_uuid_is_a_400(alice_client, method, suffix):
    response = getattr(alice_client, method)(f"/memory/not-a-uuid{suffix}", {"source_id": "s"}, format="json")
    assert response.status_code == 400
    assert response.json()["message"] == "memory_id must be a valid UUID"


@pytest.mark.parametrize(("method", "suffix"), ENDPOINTS)
def test_unknown_id_is_a_404(alice_client, method, suffix):
    response = getattr(alice_client, method)(
        f"/memory/00000000-0000-4000-8000-000000000000{suffix}", {"source_id": "s"}, format="json"
    )
    assert response.status_code == 404
    assert response.json()["message"] == "Memory not found"


def test_patch_content_reembeds_and_reevaluates(alice_client, alice_memory):
    before = Memory.objects.get(pk=alice_memory)
    response = alice_client.patch(
        f"/memory/{alice_memory}", {"content": "Alice sold her bicycle and now takes the tram"}, format="json"
    )
    assert response.status_code == 200
    after = Memory.objects.get(pk=alice_memory)
    assert after.content == "Alice sold her bicycle and now takes the tram"
    assert not np.allclose(before.embedding, after.embedding)
    assert after.updated_at > before.updated_at
    assert after.provenance_updated_at > before.provenance_updated_at
    assert after.content_hash != before.content_hash
    assert QualityAssessment.objects.filter(memory_id=alice_memory, trigger="update").count() == 1


def test_patch_without_content_keeps_vector_and_updated_at(alice_client, alice_memory):
    before = Memory.objects.get(pk=alice_memory)
    response = alice_client.patch(
        f"/memory/{alice_memory}", {"tags": ["Bike"], "importance": 0.9, "type": "insight"}, format="json"
    )
    assert response.status_code == 200
    after = Memory.objects.get(pk=alice_memory)
    assert (after.tags, after.importance, after.memory_type) == (["bike"], 0.9, "Insight")
    assert np.allclose(before.embedding, after.embedding)
    assert after.updated_at == before.updated_at


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"importance": 2}, "'importance' must be between 0 and 1"),
        ({"importance": None}, "'importance' must be a number"),
        ({"content": ""}, "'content' is required"),
        ({"type": "nope"}, "Invalid memory type 'nope'. Must be one of: "),
        ({"metadata": 3}, "'metadata' must be an object"),
    ],
)
def test_patch_validates_like_store(alice_client, alice_memory, body, message):
    response = alice_client.patch(f"/memory/{alice_memory}", body, format="json")
    assert response.status_code == 400
    assert response.json()["message"].startswith(message)


def test_patch_provenance_recomputes_confidence(alice_client, alice_memory):
    alice_client.patch(f"/memory/{alice_memory}", {"source_type": "bootstrapped"}, format="json")
    assert Memory.objects.get(pk=alice_memory).confidence == pytest.approx(0.95)


def test_delete_removes_row_and_vertex(alice_client, alice_memory):
    assert age.cypher("MATCH (m:Memory {id: $id}) RETURN count(m)", {"id": alice_memory})[0][0] == 1
    response = alice_client.delete(f"/memory/{alice_memory}")
    assert response.status_code == 200
    assert response.json() == {"status": "success", "memory_id": alice_memory}
    assert not Memory.objects.filter(pk=alice_memory).exists()
    assert age.cypher("MATCH (m:Memory {id: $id}) RETURN count(m)", {"id": alice_memory})[0][0] == 0


def test_timestamp_sets_created_at(alice_client):
    body = {"content": "Moved to Lisbon", "timestamp": "2021-03-04T05:06:07Z"}
    response = alice_client.post("/memory", body, format="json")
    assert response.status_code in (200, 201), response.json()
    memory_id = response.json()["memory_id"]
    assert Memory.objects.get(pk=memory_id).created_at.isoformat() == "2021-03-04T05:06:07+00:00"


def test_chinese_content_round_trips(alice_client):
    content = "我喜欢在周末去公园跑步，然后喝一杯咖啡。"
    response = alice_client.post("/memory", {"content": content, "tags": ["爱好"]}, format="json")
    assert response.status_code in (200, 201), response.json()
    memory_id = response.json()["memory_id"]
    memory = alice_client.get(f"/memory/{memory_id}").json()["memory"]
    assert memory["content"] == content
    assert memory["tags"] == ["爱好"]


def test_the_schema_documents_delete_as_the_200_it_answers(anon_client):
    schema = anon_client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    responses = schema["paths"]["/memory/{memory_id}"]["delete"]["responses"]

    assert "200" in responses
    assert "204" not in responses
