"""POST /api/quality/memories/<id>/reset-boost and the reset_boost service."""

import pytest

from quality.consolidation import boost_phase, reset_boost
from quality.models import QualityBoost
from tests.consolidation.conftest import fresh, hub
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def boosted(alice, boost_settings):
    memory = hub(alice, 10, quality=0.5, metadata={"project": "billing"})
    boost_phase()
    return fresh(memory)


def test_the_owner_resets_a_boost(alice_client, boosted):
    response = alice_client.post(f"/api/quality/memories/{boosted.pk}/reset-boost")

    assert response.status_code == 200
    assert response.json()["quality_score"] == pytest.approx(0.5)
    memory = fresh(boosted)
    assert memory.quality_boost_applied is False
    assert memory.original_quality_before_boost is None
    assert memory.quality_boost_reason == ""
    assert memory.metadata == {"project": "billing"}
    reset = QualityBoost.objects.get(memory=memory, kind="reset")
    assert (reset.quality_before, reset.quality_after, reset.connection_count) == (
        pytest.approx(0.6),
        pytest.approx(0.5),
        10,
    )


def test_the_service_resets_a_boost_for_the_admin(boosted):
    assert reset_boost(boosted) is True
    assert boosted.quality_score == pytest.approx(0.5)
    assert reset_boost(boosted) is False


def test_resetting_an_unboosted_memory_answers_400(alice, alice_client):
    memory = MemoryFactory(owner=alice)

    response = alice_client.post(f"/api/quality/memories/{memory.pk}/reset-boost")

    assert response.status_code == 400
    assert response.json()["message"] == "Memory has no quality boost to reset"


def test_another_users_memory_answers_404(bob_client, boosted):
    response = bob_client.post(f"/api/quality/memories/{boosted.pk}/reset-boost")

    assert response.status_code == 404
    assert fresh(boosted).quality_boost_applied is True


def test_a_malformed_id_answers_400(alice_client):
    response = alice_client.post("/api/quality/memories/not-a-uuid/reset-boost")

    assert response.status_code == 400
    assert response.json()["message"] == "memory_id must be a valid UUID"
