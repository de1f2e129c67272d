import uuid

import pytest

from graph.models import AUTHORABLE_RELATIONS, RELATION_PROPERTIES, Association
from tests.factories import MemoryFactory

TYPES_MESSAGE = f"Relation type must be one of {sorted(AUTHORABLE_RELATIONS)}"


def error(response, code, message):
    assert response.status_code == code, response.content
    assert response.json() == {"status": "error", "code": code, "message": message}


def test_associate_creates_edge_in_table_and_graph(alice_client, pair, graph_agrees):
    first, second = pair
    response = alice_client.post(
        "/associate",
        {"memory1_id": str(first.pk), "memory2_id": str(second.pk), "type": "LEADS_TO", "strength": 0.9},
        format="json",
    )
    assert response.status_code == 201
    body = response.json()
    edge = Association.objects.get()
    assert body.pop("association")["id"] == edge.pk
    assert body == {
        "status": "success",
        "message": f"Association created between {first.pk} and {second.pk}",
        "relation_type": "LEADS_TO",
        "strength": 0.9,
    }
    assert (edge.source_id, edge.target_id, edge.relation_type, edge.strength) == (
        first.pk,
        second.pk,
        "LEADS_TO",
        0.9,
    )
    assert edge.origin == "user"
    graph_agrees()


def test_associate_defaults_to_relates_to_with_strength_half(alice_client, pair):
    first, second = pair
    response = alice_client.post(
        "/associate", {"memory1_id": str(first.pk), "memory2_id": str(second.pk)}, format="json"
    )
    assert response.status_code == 201
    assert response.json()["relation_type"] == "RELATES_TO"
    assert response.json()["strength"] == 0.5


def test_associate_accepts_a_lower_case_type(alice_client, pair):
    first, second = pair
    response = alice_client.post(
        "/associate",
        {"memory1_id": str(first.pk), "memory2_id": str(second.pk), "type": "part_of"},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["relation_type"] == "PART_OF"


def test_repeating_an_association_updates_strength_without_duplicating(alice_client, pair, graph_agrees):
    first, second = pair
    body = {"memory1_id": str(first.pk), "memory2_id": str(second.pk), "type": "LEADS_TO"}
    assert alice_client.post("/associate", {**body, "strength": 0.3}, format="json").status_code == 201
    assert alice_client.post("/associate", {**body, "strength": 0.8}, format="json").status_code == 201
    assert Association.objects.count() == 1
    assert Association.objects.get().strength == 0.8
    graph_agrees()


def test_relation_properties_are_stored_and_echoed(alice_client, pair, graph_agrees):
    first, second = pair
    response = alice_client.post(
        "/associate",
        {
            "memory1_id": str(first.pk),
            "memory2_id": str(second.pk),
            "type": "PREFERS_OVER",
            "strength": 0.9,
            "reason": "ACID",
            "context": "event store",
        },
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["reason"] == "ACID"
    assert response.json()["context"] == "event store"
    assert Association.objects.get().properties == {"reason": "ACID", "context": "event store"}
    graph_agrees()


def test_associate_needs_a_token(anon_client, pair):
    first, second = pair
    response = anon_client.post(
        "/associate", {"memory1_id": str(first.pk), "memory2_id": str(second.pk)}, format="json"
    )
    assert response.status_code == 401
    assert response.json()["status"] == "error"


@pytest.mark.parametrize("body", ["[1, 2]", '"text"', "not json", ""])
def test_a_body_that_is_not_a_json_object_is_rejected(alice_client, body):
    response = alice_client.post("/associate", body, content_type="application/json")
    error(response, 400, "JSON body is required")


@pytest.mark.parametrize(
    ("strength", "message"),
    [
        ("strong", "'importance' must be a number"),
        (True, "'importance' must be a number"),
        ([0.5], "'importance' must be a number"),
        (1.5, "'importance' must be between 0 and 1"),
        (-0.1, "'importance' must be between 0 and 1"),
    ],
)
def test_a_bad_strength_is_rejected_before_the_ids(alice_client, strength, message):
    response = alice_client.post("/associate", {"strength": strength}, format="json")
    error(response, 400, message)


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"memory1_id": str(uuid.uuid4())},
        {"memory2_id": str(uuid.uuid4())},
        {"memory1_id": "  ", "memory2_id": "x"},
    ],
)
def test_both_ids_are_required(alice_client, body):
    error(
        alice_client.post("/associate", body, format="json"),
        400,
        "'memory1_id' and 'memory2_id' are required",
    )


@pytest.mark.parametrize("bad", ["not-a-uuid", 12345, ["x"], {"a": 1}])
def test_ids_must_be_uuids(alice_client, bad):
    body = {"memory1_id": bad, "memory2_id": str(uuid.uuid4())}
    error(alice_client.post("/associate", body, format="json"), 400, "memory_id must be a valid UUID")


def test_a_memory_cannot_be_associated_with_itself(alice_client):
    same = str(uuid.uuid4())
    body = {"memory1_id": same, "memory2_id": same.upper(), "type": "NOT_A_TYPE"}
    error(alice_client.post("/associate", body, format="json"), 400, "Cannot associate a memory with itself")


@pytest.mark.parametrize("bad_type", ["CAUSES", "SIMILAR_TO", "PRECEDED_BY", "DISCOVERED", 7, ["LEADS_TO"]])
def test_unknown_system_or_non_string_types_are_rejected(alice_client, bad_type):
    body = {"memory1_id": str(uuid.uuid4()), "memory2_id": str(uuid.uuid4()), "type": bad_type}
    error(alice_client.post("/associate", body, format="json"), 400, TYPES_MESSAGE)


def test_the_type_is_checked_before_the_memories_exist(alice_client):
    body = {"memory1_id": str(uuid.uuid4()), "memory2_id": str(uuid.uuid4()), "type": "CAUSES"}
    error(alice_client.post("/associate", body, format="json"), 400, TYPES_MESSAGE)


def test_missing_memories_answer_404(alice_client, pair):
    first, _ = pair
    body = {"memory1_id": str(first.pk), "memory2_id": str(uuid.uuid4())}
    error(alice_client.post("/associate", body, format="json"), 404, "One or both memories do not exist")
    assert not Association.objects.exists()


def test_another_users_memory_counts_as_missing(alice_client, bob, pair, graph_agrees):
    first, _ = pair
    foreign = MemoryFactory(owner=bob, content="Bob keeps his own notes about the event store.")
    body = {"memory1_id": str(first.pk), "memory2_id": str(foreign.pk)}
    error(alice_client.post("/associate", body, format="json"), 404, "One or both memories do not exist")
    assert not Association.objects.exists()
    graph_agrees()


def test_a_missing_graph_answers_503(alice_client, pair, monkeypatch):
    from graph import age

    monkeypatch.setattr(age, "graph_available", lambda: False)
    first, second = pair
    body = {"memory1_id": str(first.pk), "memory2_id": str(second.pk)}
    error(
        alice_client.post("/associate", body, format="json"),
        503,
        "Graph database (Apache AGE) is unavailable",
    )


def test_cypher_metacharacters_in_properties_are_stored_verbatim(alice_client, pair, graph_agrees):
    first, second = pair
    nasty = "x'}) DETACH DELETE m //$$ \\"
    response = alice_client.post(
        "/associate",
        {"memory1_id": str(first.pk), "memory2_id": str(second.pk), "type": "CONTRADICTS", "reason": nasty},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["reason"] == nasty
    graph_agrees()


def test_a_failing_graph_write_answers_500_and_writes_nothing(alice_client, pair, monkeypatch, graph_agrees):
    from django.db import DatabaseError

    from graph import age

    def broken(relation_type, rows):
        raise DatabaseError("graph write failed")

    monkeypatch.setattr(age, "merge_edges", broken)
    first, second = pair
    body = {"memory1_id": str(first.pk), "memory2_id": str(second.pk)}
    error(alice_client.post("/associate", body, format="json"), 500, "Failed to create association")
    assert not Association.objects.exists()
    monkeypatch.undo()
    graph_agrees()


def test_delete_checks_ids_and_type(alice_client, pair):
    first, second = pair
    body = {"memory1_id": str(first.pk), "memory2_id": str(second.pk)}
    error(
        alice_client.delete("/associate", {**body, "type": 5}, format="json"),
        400,
        (f"Relation type must be one of {sorted(RELATION_PROPERTIES)}"),
    )
    error(
        alice_client.delete("/associate", {"memory1_id": "x", "memory2_id": "y"}, format="json"),
        400,
        ("memory_id must be a valid UUID"),
    )
    error(alice_client.delete("/associate", body, format="json"), 404, "Association not found")
