from datetime import timedelta

import pytest
from django.utils import timezone

from graph.models import Association
from tests.memories.conftest import recall

pytestmark = pytest.mark.django_db(transaction=True)

CONVERSATION = [
    "Caroline said she adopted a rescue greyhound named Biscuit",
    "That's wonderful, how is he settling in?",
    "He sleeps all day on the sofa",
]
LONE = "The weather in Lisbon was sunny all week"


@pytest.fixture
def conversation(alice_client, run_jobs):
    """Three turns in one scope (linked by enrichment with PRECEDED_BY) and one lone memory."""
    now = timezone.now()
    ids = {}
    for hours, content, tag in [(4, LONE, "travel")] + [
        (3 - n, turn, "chat-1") for n, turn in enumerate(CONVERSATION)
    ]:
        response = alice_client.post(
            "/memory",
            {"content": content, "tags": [tag], "timestamp": (now - timedelta(hours=hours)).isoformat()},
            format="json",
        )
        assert response.status_code == 201, response.content
        ids[content] = response.json()["memory_id"]
        run_jobs()
    return ids


def test_a_turn_inherits_the_evidence_of_its_neighbouring_turn(alice_client, conversation, settings):
    first, middle, _ = (conversation[turn] for turn in CONVERSATION)
    assert Association.objects.filter(source_id=middle, target_id=first, relation_type="PRECEDED_BY").exists()
    results = recall(alice_client, query="greyhound Biscuit", limit=10)["results"]
    components = {r["id"]: r["score_components"] for r in results}
    weights = settings.RECALL_WEIGHTS
    inherited = (
        weights["vector"] * components[first]["vector"] + weights["keyword"] * components[first]["keyword"]
    )
    assert components[middle]["keyword"] == 0
    assert components[middle]["context"] > 0
    assert components[middle]["context"] == pytest.approx(inherited)
    assert components[conversation[LONE]]["context"] == 0
