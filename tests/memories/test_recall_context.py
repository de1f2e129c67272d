from datetime import timedelta

import pytest
from django.utils import timezone

from graph.models import Association
from tests.conftest import client_for
from tests.memories.conftest import race, recall
from tests.startup import start_with

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


def test_a_turn_two_steps_away_passes_on_its_evidence_at_the_context_decay(
    alice_client, conversation, settings
):
    first, middle, last = (conversation[turn] for turn in CONVERSATION)
    weights = settings.RECALL_WEIGHTS

    def contexts(decay):
        settings.RECALL_CONTEXT_DECAY = decay
        results = recall(alice_client, query="greyhound Biscuit", limit=10)["results"]
        components = {r["id"]: r["score_components"] for r in results}
        evidence = {
            memory_id: weights["vector"] * components[memory_id]["vector"]
            + weights["keyword"] * components[memory_id]["keyword"]
            for memory_id in (first, middle)
        }
        return components[last]["context"], evidence

    context, evidence = contexts(0.85)
    assert 0.85 * evidence[first] > evidence[middle]
    assert context == pytest.approx(0.85 * evidence[first])
    context, evidence = contexts(0.0)
    assert context == pytest.approx(evidence[middle])


def test_a_context_decay_above_one_stops_start_up_naming_the_variable():
    result = start_with(MEMSITE_RECALL_CONTEXT_DECAY="2")

    assert result.returncode != 0
    assert "MEMSITE_RECALL_CONTEXT_DECAY must be between 0 and 1 (got '2')" in result.stderr


HIKES = [
    f"Hiking in the {place} was the best part of the trip"
    for place in [
        "Alps", "Rockies", "Dolomites", "Pyrenees", "Andes", "Highlands", "Tatras", "Carpathians",
        "Appalachians", "Cascades", "Sierra Nevada", "Lake District", "Black Forest", "Atlas Mountains",
    ]
]  # fmt: skip
QUESTION = "Do you know a good place to go hiking near Denver?"
REPLY = "Sure, take the number 3 bus to the end of the line"
ASKED = "good place to go hiking near Denver"


@pytest.fixture
def reply_after_a_question(alice_client, run_jobs, settings):
    """Fourteen hiking memories, then a question about hiking and a reply that shares nothing
    with it; recall gathers ten nearest neighbours and ten matches per term."""
    settings.RECALL_CANDIDATES = 10
    ids = {}
    for tag, turns in [("hikes", HIKES), ("chat-2", [QUESTION, REPLY])]:
        response = alice_client.post(
            "/memory/batch", {"memories": [{"content": turn, "tags": [tag]} for turn in turns]}, format="json"
        )
        assert response.status_code == 201, response.content
        stored = [item["memory_id"] for item in response.json()["succeeded"]]
        ids.update(zip(turns, stored, strict=True))
        run_jobs()
    return ids


def test_the_reply_to_a_matching_turn_is_recalled_though_it_shares_nothing_with_the_query(
    alice_client, reply_after_a_question
):
    question, reply = reply_after_a_question[QUESTION], reply_after_a_question[REPLY]
    assert Association.objects.filter(
        source_id=reply, target_id=question, relation_type="PRECEDED_BY"
    ).exists()
    results = recall(alice_client, query=ASKED, limit=50)["results"]
    components = {r["id"]: r["score_components"] for r in results}
    assert reply in components
    nearer = [memory_id for memory_id, c in components.items() if c["vector"] > components[reply]["vector"]]
    assert len(nearer) >= 10
    assert components[reply]["keyword"] == 0
    assert components[reply]["context"] > 0


def test_a_neighbouring_turn_outside_the_filters_is_not_recalled(alice_client, reply_after_a_question):
    question, reply = reply_after_a_question[QUESTION], reply_after_a_question[REPLY]
    assert alice_client.patch(f"/memory/{reply}", {"tags": ["elsewhere"]}, format="json").status_code == 200
    results = recall(alice_client, query=ASKED, tags="chat-2", limit=50)["results"]
    assert [r["id"] for r in results] == [question]


def test_recalls_racing_with_the_deletion_of_a_reply_and_its_question_answer_without_error(
    alice, alice_client, reply_after_a_question
):
    question, reply = reply_after_a_question[QUESTION], reply_after_a_question[REPLY]
    clients = [client_for(alice) for _ in range(5)]
    operations = [
        ("delete", f"/memory/{reply}", None),
        ("post", f"/memory/{question}/archive", None),
        *[("get", "/recall", {"query": ASKED, "limit": 50})] * 3,
    ]
    statuses = race(clients, operations)
    assert statuses == [200] * 5
    results = recall(alice_client, query=ASKED, limit=50)["results"]
    assert {reply, question}.isdisjoint(r["id"] for r in results)
