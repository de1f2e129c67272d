import pytest

from memories.models import Memory

pytestmark = pytest.mark.django_db


def corroborate(client, memory_id, source_id):
    return client.post(f"/memory/{memory_id}/corroborate", {"source_id": source_id}, format="json")


def test_distinct_sources_raise_confidence_by_005_each(alice_client, alice_memory):
    first = corroborate(alice_client, alice_memory, "email:42").json()
    assert first["added"] is True
    assert first["confidence"] == pytest.approx(0.75)
    second = corroborate(alice_client, alice_memory, "chat:7").json()
    assert second["confidence"] == pytest.approx(0.80)
    assert second["corroborating_sources"] == ["email:42", "chat:7"]


def test_repeated_source_changes_nothing(alice_client, alice_memory):
    corroborate(alice_client, alice_memory, "email:42")
    before = Memory.objects.get(pk=alice_memory)
    again = corroborate(alice_client, alice_memory, "email:42").json()
    assert again["added"] is False
    after = Memory.objects.get(pk=alice_memory)
    assert (after.confidence, after.corroborating_sources) == (
        before.confidence,
        before.corroborating_sources,
    )
    assert after.provenance_updated_at == before.provenance_updated_at


def test_corroboration_is_capped_at_020(alice_client, alice_memory):
    for n in range(6):
        body = corroborate(alice_client, alice_memory, f"source-{n}").json()
    assert body["confidence"] == pytest.approx(0.90)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "'source_id' is required"),
        ({"source_id": 3}, "'source_id' must be a string of at most 200 characters"),
    ],
)
def test_corroborate_validates_source_id(alice_client, alice_memory, body, message):
    response = alice_client.post(f"/memory/{alice_memory}/corroborate", body, format="json")
    assert response.status_code == 400
    assert response.json()["message"] == message


def test_archive_then_restore(alice_client, alice_memory):
    archived = alice_client.post(f"/memory/{alice_memory}/archive").json()
    assert (archived["archived"], archived["changed"]) == (True, True)
    assert archived["memory"]["archived_at"] is not None
    again = alice_client.post(f"/memory/{alice_memory}/archive").json()
    assert again["changed"] is False
    restored = alice_client.post(f"/memory/{alice_memory}/restore").json()
    assert (restored["archived"], restored["changed"]) == (False, True)
    assert Memory.objects.get(pk=alice_memory).archived_at is None


def test_archived_memory_leaves_recall_and_by_tag_until_restored(alice_client, alice_memory):
    alice_client.post(f"/memory/{alice_memory}/archive")
    assert alice_client.get("/recall", {"query": "bicycle shed"}).json()["count"] == 0
    assert alice_client.get("/memory/by-tag", {"tags": "home"}).json()["count"] == 0
    included = alice_client.get("/recall", {"query": "bicycle shed", "include_archived": "true"}).json()
    assert [r["id"] for r in included["results"]] == [alice_memory]
    alice_client.post(f"/memory/{alice_memory}/restore")
    assert alice_client.get("/recall", {"query": "bicycle shed"}).json()["count"] == 1
