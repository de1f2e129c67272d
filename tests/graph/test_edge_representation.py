"""Every read of an edge answers one representation: id, source, target, type, strength, origin,
created and updated time, and the relation properties it was given."""

import pytest

from graph.models import Association
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db

FIELDS = {"id", "source", "target", "type", "strength", "origin", "created_at", "updated_at", "properties"}


@pytest.fixture
def linked(alice, alice_client):
    first = MemoryFactory(owner=alice, content="We chose PostgreSQL for the event store", importance=0.9)
    second = MemoryFactory(owner=alice, content="MongoDB was rejected for the event store", importance=0.8)
    response = alice_client.post(
        "/associate",
        {
            "memory1_id": str(first.pk),
            "memory2_id": str(second.pk),
            "type": "PREFERS_OVER",
            "strength": 0.9,
            "reason": "ACID guarantees",
            "context": "event store",
        },
        format="json",
    )
    assert response.status_code == 201
    return first, second, Association.objects.get(), response.json()


def expected(edge):
    return {
        "id": edge.pk,
        "source": str(edge.source_id),
        "target": str(edge.target_id),
        "type": "PREFERS_OVER",
        "strength": 0.9,
        "origin": "user",
        "properties": {"reason": "ACID guarantees", "context": "event store"},
    }


def without_times(data):
    assert set(data) == FIELDS
    assert data["created_at"]
    assert data["updated_at"]
    return {name: value for name, value in data.items() if name not in ("created_at", "updated_at")}


def test_creating_an_association_answers_its_id_and_properties(linked):
    _, _, edge, answer = linked
    assert without_times(answer["association"]) == expected(edge)


def test_neighbors_answer_why_two_memories_are_linked(alice_client, linked):
    first, _, edge, _ = linked
    (data,) = alice_client.get(f"/graph/neighbors/{first.pk}").json()["edges"]
    assert without_times(data) == expected(edge)


def test_related_answers_the_association_it_followed(alice_client, linked):
    first, _, edge, _ = linked
    (item,) = alice_client.get(f"/memories/{first.pk}/related").json()["related"]
    assert without_times(item["association"]) == expected(edge)


def test_the_snapshot_answers_each_edge_whole(alice_client, linked):
    _, _, edge, _ = linked
    (data,) = alice_client.get("/graph/snapshot").json()["edges"]
    assert without_times(data) == expected(edge)


def test_recall_relations_carry_the_association(alice_client, linked):
    first, second, edge, _ = linked
    response = alice_client.get("/recall", {"query": "event store", "expand_relations": "true"})
    results = {result["id"]: result for result in response.json()["results"]}
    (relation,) = results[str(first.pk)]["relations"]
    assert relation["memory_id"] == str(second.pk)
    assert without_times(relation["association"]) == expected(edge)


def test_an_association_is_read_by_its_id_and_hidden_from_others(alice_client, bob_client, linked):
    _, _, edge, _ = linked
    response = alice_client.get(f"/association/{edge.pk}")
    assert without_times(response.json()["association"]) == expected(edge)
    assert bob_client.get(f"/association/{edge.pk}").status_code == 404


def test_the_openapi_document_describes_the_edge(alice_client):
    schema = alice_client.get("/api/schema/?format=json").json()
    assert set(schema["components"]["schemas"]["Edge"]["properties"]) == FIELDS
    neighbors = schema["paths"]["/graph/neighbors/{memory_id}"]["get"]["responses"]["200"]
    assert neighbors["content"]["application/json"]["schema"]["$ref"].endswith("/NeighborsResponse")


def test_a_property_the_type_does_not_take_is_named_as_ignored(alice_client, alice):
    first, second = MemoryFactory.create_batch(2, owner=alice)
    body = {"memory1_id": str(first.pk), "memory2_id": str(second.pk), "type": "RELATES_TO"}

    single = alice_client.post("/associate", {**body, "reason": "why not"}, format="json")
    batch = alice_client.post(
        "/associate", {"associations": [{**body, "role": "x", "context": "y"}]}, format="json"
    )

    assert single.json()["ignored_properties"] == ["reason"]
    assert batch.json()["succeeded"][0]["ignored_properties"] == ["context", "role"]
    assert Association.objects.get().properties == {}


def test_the_openapi_document_shows_the_body_delete_associate_takes(alice_client):
    schema = alice_client.get("/api/schema/?format=json").json()
    body = schema["paths"]["/associate"]["delete"]["requestBody"]
    assert body["required"] is True
    assert body["content"]["application/json"]["schema"]["required"] == ["memory1_id", "memory2_id"]
