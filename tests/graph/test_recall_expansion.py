import factory
import pytest

from graph.models import Association
from memories.recall import COMPONENTS
from tests.factories import AssociationFactory, MemoryFactory


def distractors(user):
    texts = [
        "The quarterly budget review happens every March.",
        "Sarah enjoys hiking in the mountains on weekends.",
        "The office coffee machine was replaced last week.",
        "Our sprint retrospective moved to Thursday afternoons.",
        "The database migration finished without errors.",
        "Sarah's favourite book is a long science fiction novel.",
    ]
    MemoryFactory.create_batch(len(texts), owner=user, content=factory.Iterator(texts), tags=["misc"])


def ids(response):
    return [result["id"] for result in response.json()["results"]]


def test_the_multi_hop_example_finds_sarahs_sisters_job(alice, alice_client):
    distractors(alice)
    sister = MemoryFactory(
        owner=alice, content="Sarah's sister is Rachel", tags=["family", "sarah", "rachel"]
    )
    job = MemoryFactory(
        owner=alice, content="Rachel is a software engineer at Tech Corp", tags=["career", "rachel"]
    )
    edge = AssociationFactory(source=sister, target=job, strength=0.95)

    response = alice_client.get(
        "/recall", {"query": "What is Sarah's sister's job?", "expand_entities": "true"}
    )

    assert response.status_code == 200
    results = {result["id"]: result for result in response.json()["results"]}
    assert str(job.pk) in results
    (outgoing,) = results[str(sister.pk)]["relations"]
    assert outgoing.pop("association")["id"] == edge.pk
    assert outgoing == {
        "type": "RELATES_TO",
        "strength": 0.95,
        "direction": "outgoing",
        "memory_id": str(job.pk),
    }
    incoming = [relation.pop("association") and relation for relation in results[str(job.pk)]["relations"]]
    assert {
        "type": "RELATES_TO",
        "strength": 0.95,
        "direction": "incoming",
        "memory_id": str(sister.pk),
    } in incoming
    assert results[str(job.pk)]["score_components"]["relation"] > 0
    assert response.json()["expansion"]["expand_entities"] is True


def chain(user):
    """a -> b -> c, where only a matches the query."""
    a = MemoryFactory(
        owner=user, content="Kubernetes cluster upgrade plan for the payments platform", tags=["infra"]
    )
    b = MemoryFactory(owner=user, content="Weekly status meeting notes", tags=["notes"])
    c = MemoryFactory(owner=user, content="Lunch order for the team offsite", tags=["food"])
    AssociationFactory(source=a, target=b, strength=0.9)
    AssociationFactory(source=b, target=c, strength=0.8)
    return a, b, c


def recall(client, **params):
    return client.get("/recall", {"query": "Kubernetes cluster upgrade", "limit": 1, **params})


def test_two_hops_reach_a_memory_one_hop_does_not(alice, alice_client):
    a, b, c = chain(alice)
    one = recall(alice_client, expand_relations="true", max_hops=1)
    two = recall(alice_client, expand_relations="true", max_hops=2)
    assert ids(one)[0] == str(a.pk)
    assert str(b.pk) in ids(one)
    assert str(c.pk) not in ids(one)
    assert str(c.pk) in ids(two)


def test_expansion_follows_edges_in_both_directions(alice, alice_client):
    a, b, _ = chain(alice)
    response = alice_client.get(
        "/recall", {"query": "Weekly status meeting notes", "limit": 1, "expand_relations": "true"}
    )
    assert ids(response)[0] == str(b.pk)
    assert str(a.pk) in ids(response)


def test_expansion_respects_min_strength_and_importance(alice, alice_client):
    a, b, _ = chain(alice)
    weak = recall(alice_client, expand_relations="true", expand_min_strength=0.95)
    assert ids(weak) == [str(a.pk)]
    low = recall(alice_client, expand_relations="true", expand_min_importance=0.9)
    assert ids(low) == [str(a.pk)]


def test_expanded_results_are_ranked_by_their_own_score(alice, alice_client):
    a, b, c = chain(alice)
    response = recall(alice_client, expand_relations="true", max_hops=2)
    scores = [result["final_score"] for result in response.json()["results"]]
    assert scores == sorted(scores, reverse=True)
    expanded = [r for r in response.json()["results"] if r["id"] != str(a.pk)]
    assert {r["match_type"] for r in expanded} == {"relation"}


def test_without_expansion_no_relations_are_followed(alice, alice_client):
    a, _, _ = chain(alice)
    response = recall(alice_client)
    assert ids(response) == [str(a.pk)]
    assert response.json()["results"][0]["relations"] == []


def test_expansion_never_reaches_another_users_memories(alice, bob, alice_client):
    a, _, _ = chain(alice)
    bobs = MemoryFactory(owner=bob, content="Kubernetes cluster upgrade notes of Bob", tags=["infra"])
    other = MemoryFactory(owner=bob, content="Bob's private diary entry")
    AssociationFactory(source=bobs, target=other, strength=0.99)
    response = recall(alice_client, expand_relations="true", max_hops=3, limit=10)
    assert not set(ids(response)) & {str(bobs.pk), str(other.pk)}
    assert Association.objects.filter(source__owner=alice).count() == 2


def test_expansion_reaches_beyond_the_tag_filter_by_default(alice, alice_client):
    a, b, _ = chain(alice)
    response = recall(alice_client, expand_relations="true", tags="infra", limit=5)
    assert ids(response) == [str(a.pk), str(b.pk)]
    assert response.json()["results"][1]["match_type"] == "relation"
    assert response.json()["expansion"]["expand_respect_tags"] is False


def test_expansion_respects_the_tag_filter_when_asked(alice, alice_client):
    a, _, _ = chain(alice)
    response = recall(
        alice_client, expand_relations="true", expand_respect_tags="true", tags="infra", limit=5
    )
    assert ids(response) == [str(a.pk)]
    assert response.json()["results"][0]["relations"] == []


def test_expanded_memories_obey_the_other_recall_filters(alice, alice_client):
    a, b, _ = chain(alice)
    b.memory_type = "Decision"
    b.save(update_fields=["memory_type"])
    response = recall(alice_client, expand_relations="true", type="Memory", limit=5)
    assert str(b.pk) not in ids(response)


def test_an_expanded_memory_is_scored_as_it_would_be_as_a_seed(alice, alice_client):
    a, b, _ = chain(alice)
    expanded = {r["id"]: r for r in recall(alice_client, expand_relations="true").json()["results"]}
    seeded = {r["id"]: r for r in recall(alice_client, limit=3).json()["results"]}
    assert expanded[str(b.pk)]["match_type"] == "relation"
    assert seeded[str(b.pk)]["match_type"] != "relation"
    for name in set(COMPONENTS) - {"relation"}:
        assert expanded[str(b.pk)]["score_components"][name] == pytest.approx(
            seeded[str(b.pk)]["score_components"][name]
        )
    seed = expanded[str(a.pk)]["score_components"]
    assert expanded[str(b.pk)]["score_components"]["relation"] == pytest.approx(
        0.9 * seed["importance"] * seed["vector"]
    )
    assert seeded[str(b.pk)]["score_components"]["relation"] == 0


def test_graph_code_does_not_import_recall():
    import graph.queries

    assert "recall" not in vars(graph.queries)


def test_the_answer_holds_at_most_limit_plus_expansion_limit_memories(alice, alice_client):
    a, b, c = chain(alice)
    unbounded = recall(alice_client, expand_relations="true", max_hops=2)
    bounded = recall(alice_client, expand_relations="true", max_hops=2, expansion_limit=1)

    assert set(ids(unbounded)) == {str(a.pk), str(b.pk), str(c.pk)}
    assert len(ids(bounded)) == 2
    assert ids(bounded)[0] == str(a.pk)


def test_the_openapi_document_says_what_bounds_an_expanded_answer(alice_client):
    schema = alice_client.get("/api/schema/?format=json").json()
    parameters = {p["name"]: p for p in schema["paths"]["/recall"]["get"]["parameters"]}
    assert "limit + expansion_limit" in parameters["expansion_limit"]["description"]
    assert "expansion_limit" in parameters["limit"]["description"]
