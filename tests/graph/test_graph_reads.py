import uuid

from tests.factories import AssociationFactory, MemoryFactory
from tests.graph.test_recall_expansion import chain


def test_neighbors_follow_depth_in_both_directions(alice, alice_client):
    a, b, c = chain(alice)
    one = alice_client.get(f"/graph/neighbors/{b.pk}").json()
    assert {node["id"] for node in one["nodes"]} == {str(a.pk), str(c.pk)}
    two = alice_client.get(f"/graph/neighbors/{a.pk}", {"depth": 2}).json()
    assert [(node["id"], node["depth"]) for node in two["nodes"]] == [(str(b.pk), 1), (str(c.pk), 2)]
    assert {(edge["source"], edge["target"], edge["type"]) for edge in two["edges"]} == {
        (str(a.pk), str(b.pk), "RELATES_TO"),
        (str(b.pk), str(c.pk), "RELATES_TO"),
    }


def test_neighbors_filter_by_type_and_strength(alice, alice_client):
    a, b, c = chain(alice)
    assert alice_client.get(f"/graph/neighbors/{b.pk}", {"min_strength": 0.85}).json()["count"] == 1
    assert alice_client.get(f"/graph/neighbors/{b.pk}", {"types": "leads_to"}).json()["count"] == 0


def test_neighbors_validate_their_parameters(alice, alice_client):
    memory = MemoryFactory(owner=alice, content="A lonely memory")
    assert alice_client.get(f"/graph/neighbors/{memory.pk}", {"depth": 4}).json()["message"] == (
        "'depth' must be an integer between 1 and 3"
    )
    assert alice_client.get(f"/graph/neighbors/{memory.pk}", {"types": "NOPE"}).status_code == 400
    assert (
        alice_client.get("/graph/neighbors/not-a-uuid").json()["message"] == "memory_id must be a valid UUID"
    )


def test_another_users_memory_has_no_neighbors_to_show(alice, bob_client, alice_client):
    a, _, _ = chain(alice)
    response = bob_client.get(f"/graph/neighbors/{a.pk}")
    assert response.status_code == 404
    assert response.json()["message"] == "Memory not found"
    assert bob_client.get(f"/memories/{a.pk}/related").status_code == 404
    assert bob_client.get(f"/graph/neighbors/{uuid.uuid4()}").status_code == 404


def test_related_lists_the_strongest_links_first(alice, alice_client):
    a, b, c = chain(alice)
    response = alice_client.get(f"/memories/{b.pk}/related")
    related = response.json()["related"]
    assert [(item["memory"]["id"], item["strength"]) for item in related] == [
        (str(a.pk), 0.9),
        (str(c.pk), 0.8),
    ]
    limited = alice_client.get(f"/memories/{a.pk}/related", {"max_depth": 2, "limit": 1}).json()
    assert [item["memory"]["id"] for item in limited["related"]] == [str(b.pk)]


def test_snapshot_shows_only_the_owners_nodes_and_edges(alice, bob, alice_client):
    chain(alice)
    x = MemoryFactory(owner=bob, content="Bob's first note")
    y = MemoryFactory(owner=bob, content="Bob's second note")
    AssociationFactory(source=x, target=y, strength=0.9)
    snapshot = alice_client.get("/graph/snapshot").json()
    assert snapshot["node_count"] == 3
    assert snapshot["edge_count"] == 2
    assert str(x.pk) not in {node["id"] for node in snapshot["nodes"]}


def test_stats_count_the_owners_associations(alice, alice_client, bob):
    chain(alice)
    stats = alice_client.get("/graph/stats").json()
    assert stats["memory_count"] == 3
    assert stats["association_count"] == 2
    assert stats["by_type"]["RELATES_TO"]["count"] == 2
    assert stats["by_origin"] == {"user": 2}


def test_relations_list_hides_discovered(alice_client):
    relations = alice_client.get("/graph/relations").json()["relations"]
    names = {relation["type"] for relation in relations}
    assert "DISCOVERED" not in names
    assert {"RELATES_TO", "PART_OF", "SIMILAR_TO", "PRECEDED_BY"} <= names
    assert next(r for r in relations if r["type"] == "SIMILAR_TO")["authorable"] is False
