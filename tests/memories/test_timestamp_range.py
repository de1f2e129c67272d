import pytest

from memories.models import Memory
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db

RANGE = "must be between 1000-01-01 and 9000-12-31 (UTC)"
OUT_OF_RANGE = [
    "9999-12-31T23:59:59-14:00",
    "0001-01-01T00:00:00+14:00",
    "0999-12-31T23:59:59Z",
    "9001-01-01T00:00:00Z",
]


@pytest.mark.parametrize("timestamp", OUT_OF_RANGE)
def test_a_store_with_a_date_out_of_range_is_refused_and_writes_nothing(alice_client, timestamp):
    response = alice_client.post("/memory", {"content": "p1", "timestamp": timestamp}, format="json")

    assert response.status_code == 400
    assert response.json()["message"] == f"'timestamp' {RANGE}"
    assert not Memory.objects.exists()


def test_a_batch_item_with_a_date_out_of_range_fails_alone(alice_client):
    memories = [{"content": "fine"}, {"content": "poison", "timestamp": OUT_OF_RANGE[0]}]
    response = alice_client.post("/memory/batch", {"memories": memories}, format="json")

    assert response.status_code == 207
    assert response.json()["failed"] == [{"index": 1, "reason": f"'timestamp' {RANGE}"}]
    assert list(Memory.objects.values_list("content", flat=True)) == ["fine"]


def test_a_patch_to_a_date_out_of_range_changes_nothing(alice, alice_client):
    memory = MemoryFactory(owner=alice, content="A dated fact")
    response = alice_client.patch(f"/memory/{memory.pk}", {"timestamp": OUT_OF_RANGE[1]}, format="json")

    assert response.status_code == 400
    memory.refresh_from_db()
    assert alice_client.get(f"/memory/{memory.pk}").status_code == 200


def test_a_date_at_the_edge_of_the_range_is_stored_and_readable_everywhere(alice_client):
    response = alice_client.post(
        "/memory", {"content": "old", "timestamp": "1000-01-01T00:00:00Z"}, format="json"
    )
    assert response.status_code == 201
    memory_id = response.json()["memory_id"]

    assert alice_client.get(f"/memory/{memory_id}").status_code == 200
    assert alice_client.get("/recall").status_code == 200
    assert alice_client.get("/recall", {"query": "old"}).status_code == 200
    assert alice_client.get("/api/quality/distribution").status_code == 200
    assert alice_client.get("/graph/snapshot").status_code == 200


@pytest.mark.parametrize("name", ["start", "end"])
def test_recall_refuses_a_time_filter_out_of_range(alice_client, name):
    response = alice_client.get("/recall", {name: OUT_OF_RANGE[0]})

    assert response.status_code == 400
    assert response.json()["message"] == f"'{name}' {RANGE}"
