"""A key no endpoint reads is a 400 naming it, with nothing changed; the keys AutoMem's clients
send that memsite works out itself are accepted and ignored (README, "Accepted and ignored")."""

import uuid

import pytest

from graph.models import Association
from memories.models import Memory
from quality.models import Inconsistency
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


def test_a_misspelt_field_of_a_new_memory_is_a_400_naming_it(alice_client):
    response = alice_client.post("/memory", {"content": "x", "tgas": ["x"]}, format="json")

    assert response.status_code == 400
    assert response.json()["message"] == "Unknown field: 'tgas'"
    assert not Memory.objects.exists()


def test_a_misspelt_field_of_a_change_changes_nothing(alice_client, alice):
    memory = MemoryFactory(owner=alice, content="before")

    response = alice_client.patch(
        f"/memory/{memory.pk}", {"content": "after", "importnace": 1, "tgas": []}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["message"] == "Unknown fields: 'importnace', 'tgas'"
    memory.refresh_from_db()
    assert memory.content == "before"


def test_a_batch_item_with_an_unknown_field_fails_alone(alice_client):
    items = [{"content": "kept"}, {"content": "refused", "colour": "red"}]

    response = alice_client.post("/memory/batch", {"memories": items}, format="json")

    assert response.json()["failed"] == [{"index": 1, "reason": "Unknown field: 'colour'"}]
    assert list(Memory.objects.values_list("content", flat=True)) == ["kept"]


def test_the_keys_automem_clients_send_are_accepted_and_ignored(alice_client):
    body = {"content": "x", "confidence": 0.9, "embedding": [0.1], "t_valid": "2024-01-01", "id": "mine"}

    response = alice_client.post("/memory", body, format="json")

    assert response.status_code == 201
    assert response.json()["memory_id"] != "mine"


@pytest.mark.parametrize(
    ("path", "params", "message"),
    [
        ("/recall", {"query": "x", "limt": "3"}, "Unknown field: 'limt'"),
        ("/recall", {"query": "x", "offset": "10"}, "Unknown field: 'offset'"),
        ("/memory/by-tag", {"tags": "a", "tag": "b"}, "Unknown field: 'tag'"),
        ("/graph/snapshot", {"limti": "3"}, "Unknown field: 'limti'"),
        ("/api/quality/distribution", {"min": "0.2"}, "Unknown field: 'min'"),
        ("/api/quality/low", {"threshold": "0.3", "limt": "3"}, "Unknown field: 'limt'"),
        ("/api/quality/inconsistencies", {"type": "duplicate", "severity": "1"}, "Unknown field: 'severity'"),
        ("/api/quality/improvements", {"page": "2"}, "Unknown field: 'page'"),
        ("/api/quality/report", {"owner": "bob"}, "Unknown field: 'owner'"),
        ("/api/quality/trends", {"day": "7"}, "Unknown field: 'day'"),
        ("/api/quality/boosts", {"sort": "new"}, "Unknown field: 'sort'"),
    ],
)
def test_an_unknown_query_parameter_is_a_400_naming_it(alice_client, path, params, message):
    response = alice_client.get(path, params)

    assert response.status_code == 400
    assert response.json()["message"] == message


def test_recall_accepts_automems_context_hints_and_the_validity_parameters(alice_client):
    params = {"query": "x", "context": "coding", "language": "python", "valid_at": "2024-01-01T00:00:00Z"}

    assert alice_client.get("/recall", {**params, "include_superseded": "false"}).status_code == 200


def test_an_association_with_an_unknown_key_is_a_400(alice_client, alice):
    first, second = MemoryFactory.create_batch(2, owner=alice)
    body = {"memory1_id": str(first.pk), "memory2_id": str(second.pk), "strenght": 0.9}

    response = alice_client.post("/associate", body, format="json")

    assert response.status_code == 400
    assert response.json()["message"] == "Unknown field: 'strenght'"
    assert not Association.objects.exists()


def test_a_snapshot_beyond_500_nodes_is_refused_like_every_list(alice_client):
    response = alice_client.get("/graph/snapshot", {"limit": "501"})

    assert response.status_code == 400
    assert response.json()["message"] == "'limit' must be an integer between 1 and 500"


def test_a_misspelt_field_of_a_quality_action_is_a_400_and_changes_nothing(alice_client, alice):
    memory = MemoryFactory(owner=alice, content="The office is on the third floor")
    finding = Inconsistency.objects.create(
        type=Inconsistency.Type.OUTDATED, memory1=memory, severity=0.5, description="old"
    )

    resolve = alice_client.post(
        f"/api/quality/inconsistencies/{finding.pk}/resolve",
        {"action": "keep_both", "raeson": "checked"},
        format="json",
    )
    evaluate = alice_client.post("/api/quality/evaluate", {"all": True, "qeury": "x"}, format="json")

    assert [r.status_code for r in (resolve, evaluate)] == [400, 400]
    assert resolve.json()["message"] == "Unknown field: 'raeson'"
    assert evaluate.json()["message"] == "Unknown field: 'qeury'"
    finding.refresh_from_db()
    assert finding.status == "open"


def test_the_quality_lists_take_their_filters_and_paging_and_nothing_else(alice_client, staff_client):
    findings = {"type": "duplicate", "status": "open", "memory": str(uuid.uuid4()), "min_severity": "0.1"}
    findings.update(limit=5, offset=0)
    assert alice_client.get("/api/quality/inconsistencies", findings).status_code == 200
    assert alice_client.get("/api/quality/low", {"threshold": "0.3", "limit": 5}).status_code == 200
    assert staff_client.get("/api/consolidation/runs", {"limit": 5}).status_code == 200

    response = staff_client.get("/api/consolidation/runs", {"limit": 5, "status": "failed"})

    assert response.status_code == 400
    assert response.json()["message"] == "Unknown field: 'status'"
