import pytest

from graph import entities
from graph.models import EntityAlias
from memories.models import Memory
from tests.conftest import at_once
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def store(alice_client, run_jobs):
    """POST /memory, then let a worker run the queued enrichment (and any re-tagging it queued)."""

    def post(content):
        response = alice_client.post("/memory", {"content": content, "tags": ["chat"]}, format="json")
        assert response.status_code == 201, response.content
        run_jobs()
        return response.json()["memory_id"]

    return post


def entity_tags(memory_id):
    return sorted(tag for tag in Memory.objects.get(pk=memory_id).tags if tag.startswith(entities.PREFIX))


def test_a_first_name_after_the_full_name_is_tagged_as_the_full_name(store):
    full = store("Zoë O'Brien works at Café Noir.")
    short = store("Lunch with Zoë at noon.")
    assert entity_tags(full) == ["entity:café-noir", "entity:zoë-o-brien"]
    assert entity_tags(short) == ["entity:zoë-o-brien"]


def test_a_first_name_before_the_full_name_is_re_tagged_by_the_queued_job(store):
    short = store('O\'Brien said "hi" to Zoë at Café Noir.')
    assert "entity:zoë" in entity_tags(short)
    store("Zoë O'Brien works at Café Noir.")
    assert entity_tags(short) == ["entity:café-noir", "entity:o-brien", "entity:zoë-o-brien"]
    assert Memory.objects.get(pk=short).tags[0] == "chat"


def test_the_first_full_name_keeps_the_alias_and_places_are_not_aliases(store, alice_client):
    store("Zoë O'Brien works at Café Noir.")
    other = store("Zoë Smith moved away.")
    store("Paris Hilton was at the party.")
    assert entity_tags(other) == ["entity:zoë-smith"]
    aliases = alice_client.get("/graph/aliases").json()
    assert aliases == {
        "status": "success",
        "count": 1,
        "aliases": [{"alias": "entity:zoë", "entity": "entity:zoë-o-brien"}],
    }


def test_aliases_belong_to_their_owner(store, bob_client):
    store("Zoë O'Brien works at Café Noir.")
    response = bob_client.post("/memory", {"content": "Zoë called."}, format="json")
    assert response.status_code == 201
    assert bob_client.get("/graph/aliases").json()["count"] == 0


def test_a_query_naming_the_first_name_finds_the_full_names_memories(store, alice_client):
    full = store("Zoë O'Brien works at Café Noir.")
    store("The kettle is broken again.")
    response = alice_client.get("/recall", {"query": "Where does Zoë work?", "expand_entities": "true"})
    assert response.status_code == 200
    assert full in {result["id"] for result in response.json()["results"]}


def test_two_jobs_naming_the_same_first_name_at_once_record_one_alias(alice, run_jobs):
    from graph import enrichment

    one = MemoryFactory(owner=alice, content="Zoë O'Brien works at Café Noir.")
    two = MemoryFactory(owner=alice, content="Zoë Smith runs Café Noir.")
    results = at_once([lambda: enrichment.enrich([one.pk]), lambda: enrichment.enrich([two.pk])])
    assert [result["failed"] for result in results] == [0, 0]
    assert list(EntityAlias.objects.values_list("alias", flat=True)) == ["zoë"]
    run_jobs()
    tags = {pk: entity_tags(pk) for pk in (one.pk, two.pk)}
    assert sorted(map(tuple, tags.values())) == [
        ("entity:café-noir", "entity:zoë-o-brien"),
        ("entity:café-noir", "entity:zoë-smith"),
    ]
