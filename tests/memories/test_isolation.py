import pytest

from memories import services
from memories.models import Memory
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def bobs_memory(bob):
    return str(
        MemoryFactory(owner=bob, content="Bob's secret recipe uses smoked paprika", tags=["recipe"]).pk
    )


@pytest.mark.parametrize(
    ("method", "suffix", "body"),
    [
        ("get", "", None),
        ("patch", "", {"importance": 0.9}),
        ("delete", "", None),
        ("post", "/corroborate", {"source_id": "x"}),
        ("post", "/archive", None),
        ("post", "/restore", None),
    ],
)
def test_another_users_memory_is_a_404_on_every_endpoint(alice_client, bobs_memory, method, suffix, body):
    response = getattr(alice_client, method)(f"/memory/{bobs_memory}{suffix}", body, format="json")
    assert response.status_code == 404
    assert response.json()["message"] == "Memory not found"
    memory = Memory.objects.get(pk=bobs_memory)
    assert (memory.importance, memory.corroborating_sources, memory.archived_at) == (0.5, [], None)


def test_recall_never_shows_another_users_memories(alice, alice_client, bobs_memory):
    MemoryFactory(owner=alice, content="Alice likes tomato soup")
    for params in [
        {"query": "smoked paprika recipe"},
        {"query": "paprika", "include_archived": "true"},
        {"tags": "recipe"},
        {},
    ]:
        ids = [r["id"] for r in alice_client.get("/recall", params).json()["results"]]
        assert bobs_memory not in ids


def test_by_tag_never_lists_another_users_memories(alice_client, bobs_memory):
    assert alice_client.get("/memory/by-tag", {"tags": "recipe"}).json()["count"] == 0


def test_duplicate_detection_does_not_reveal_another_users_memory(alice_client, bobs_memory):
    response = alice_client.post(
        "/memory", {"content": "Bob's secret recipe uses smoked paprika"}, format="json"
    )
    assert response.status_code == 201
    assert response.json()["memory_id"] != bobs_memory


def test_recall_does_not_touch_another_users_access_counters(alice_client, bob_client, bobs_memory):
    assert alice_client.get("/recall", {"query": "paprika"}).status_code == 200
    services.apply_accesses()
    assert Memory.objects.get(pk=bobs_memory).access_count == 0
