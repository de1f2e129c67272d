import pytest

from quality.models import QualityAssessment
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


def triggers(memory_id):
    rows = QualityAssessment.objects.filter(memory_id=memory_id).order_by("id")
    return list(rows.values_list("trigger", flat=True))


def test_storing_a_memory_evaluates_it_and_shows_its_quality(alice_client):
    response = alice_client.post("/memory", {"content": "The user prefers dark mode"}, format="json")
    body = response.json()
    assert triggers(body["memory_id"]) == ["store"]
    quality = body["memory"]["quality"]
    assert quality["accuracy"] == pytest.approx(0.70)
    assert quality["consistency"] == pytest.approx(0.3)
    assert quality["timeliness"] == pytest.approx(1.0, abs=1e-4)
    assert quality["relevance"] == pytest.approx(0.5)
    assert quality["overall"] == pytest.approx(body["quality_score"])


def test_changing_a_memory_evaluates_it_again(alice, alice_client):
    memory_id = str(MemoryFactory(owner=alice, content="Hi").pk)
    response = alice_client.patch(f"/memory/{memory_id}", {"content": "Hi " + "x" * 300}, format="json")
    assert response.status_code == 200
    assert triggers(memory_id) == ["store", "update"]
    assert response.json()["memory"]["quality"]["completeness"] > 0.7


def test_corroborating_a_memory_evaluates_it_again(alice, alice_client):
    memory_id = str(MemoryFactory(owner=alice, content="The office moved to Lisbon").pk)
    response = alice_client.post(f"/memory/{memory_id}/corroborate", {"source_id": "email-7"}, format="json")
    assert response.status_code == 200
    assert triggers(memory_id) == ["store", "corroborate"]
    quality = response.json()["memory"]["quality"]
    assert quality["accuracy"] == pytest.approx(0.75)
    assert round(quality["consistency"], 4) == 0.5708


def test_a_repeated_corroborating_source_changes_nothing(alice, alice_client):
    memory_id = str(MemoryFactory(owner=alice, content="The office moved to Lisbon").pk)
    alice_client.post(f"/memory/{memory_id}/corroborate", {"source_id": "email-7"}, format="json")
    response = alice_client.post(f"/memory/{memory_id}/corroborate", {"source_id": "email-7"}, format="json")
    quality = response.json()["memory"]["quality"]
    assert quality["accuracy"] == pytest.approx(0.75)
    assert round(quality["consistency"], 4) == 0.5708
