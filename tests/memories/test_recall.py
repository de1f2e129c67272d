from datetime import UTC, datetime

import numpy as np
import pytest

from memories import embeddings, services
from memories.models import Memory
from tests.factories import MemoryFactory
from tests.memories.conftest import recall, recalled_contents

pytestmark = pytest.mark.django_db

FACTS = [
    "Alice's daughter started violin lessons on Tuesdays",
    "The team decided to migrate the billing service to PostgreSQL",
    "Our office coffee machine is broken again",
    "Remember to renew the car insurance before June",
    "The quarterly sales figures beat expectations by twelve percent",
]


@pytest.fixture
def facts(alice):
    return {content: str(MemoryFactory(owner=alice, content=content).pk) for content in FACTS}


def test_paraphrase_is_found_by_meaning(alice_client, facts):
    assert (
        recalled_contents(alice_client, query="my kid is learning to play a string instrument")[0] == FACTS[0]
    )
    assert recalled_contents(alice_client, query="which database will payments move to")[0] == FACTS[1]


def test_result_shape(alice_client, facts):
    body = recall(alice_client, query="car insurance renewal", limit=2)
    assert body["status"] == "success"
    assert body["query"] == "car insurance renewal"
    assert body["count"] == 2
    assert isinstance(body["query_time_ms"], float)
    assert body["expansion"]["enabled"] is False
    first = body["results"][0]
    assert first["id"] == facts[FACTS[3]]
    assert first["memory"]["content"] == FACTS[3]
    assert set(first["score_components"]) == {
        "vector",
        "keyword",
        "relation",
        "tag",
        "importance",
        "confidence",
        "recency",
        "context",
        "time",
        "statement",
        "answer",
        "superseded",
        "overtaken",
    }
    assert first["match_type"] in {"vector", "keyword"}
    assert first["relations"] == []
    assert first["final_score"] >= body["results"][1]["final_score"]


def test_final_score_is_the_weighted_sum_of_components(alice_client, facts, settings):
    result = recall(alice_client, query="coffee machine")["results"][0]
    weights = settings.RECALL_WEIGHTS
    signs = {"superseded": -1}
    expected = sum(
        signs.get(name, 1) * weights[name] * value for name, value in result["score_components"].items()
    )
    assert result["final_score"] == pytest.approx(expected)
    assert result["score_components"]["keyword"] > 0
    assert result["score_components"]["recency"] == pytest.approx(1, abs=0.01)


def test_rare_keyword_is_found_when_the_vector_search_misses_it(alice, alice_client, settings):
    settings.RECALL_CANDIDATES = 10
    for n in range(15):
        MemoryFactory(owner=alice, content=f"Meeting notes number {n} about the weekly planning")
    target = str(MemoryFactory(owner=alice, content="The cabin wifi password is zanzibarite").pk)
    away = -np.array(embeddings.embed("zanzibarite"))
    Memory.objects.filter(pk=target).update(embedding=away.tolist())
    results = recall(alice_client, query="zanzibarite")["results"]
    assert results[0]["id"] == target
    assert results[0]["match_type"] == "keyword"
    assert results[0]["score_components"]["vector"] == 0


def test_chinese_content_is_searchable(alice, alice_client, facts):
    target = str(MemoryFactory(owner=alice, content="我喜欢在周末去公园跑步").pk)
    MemoryFactory(owner=alice, content="今天的会议改到下午三点")
    results = recall(alice_client, query="公园跑步")["results"]
    assert results[0]["id"] == target
    assert results[0]["score_components"]["keyword"] > 0


def test_recall_updates_access_of_returned_memories_only(alice_client, facts):
    body = recall(alice_client, query="violin lessons", limit=1)
    returned = body["results"][0]["id"]
    assert body["results"][0]["memory"]["access_count"] == 1
    assert services.apply_accesses() == {"memories": 1}
    assert Memory.objects.get(pk=returned).access_count == 1
    assert Memory.objects.get(pk=returned).last_accessed_at is not None
    others = Memory.objects.exclude(pk=returned)
    assert set(others.values_list("access_count", flat=True)) == {0}


def test_limit_defaults_to_5(alice, alice_client, facts):
    MemoryFactory(owner=alice, content="a sixth memory")
    assert recall(alice_client, query="memory")["count"] == 5


def test_no_query_lists_by_recency(alice, alice_client):
    MemoryFactory(owner=alice, content="older", created_at=datetime(2024, 1, 1, tzinfo=UTC))
    MemoryFactory(owner=alice, content="newer", created_at=datetime(2025, 1, 1, tzinfo=UTC))
    MemoryFactory(owner=alice, content="oldest", created_at=datetime(2023, 1, 1, tzinfo=UTC))
    body = recall(alice_client)
    assert [r["memory"]["content"] for r in body["results"]] == ["newer", "older", "oldest"]
    assert {r["match_type"] for r in body["results"]} == {"recency"}


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"limit": "0"}, "'limit' must be an integer between 1 and 100"),
        ({"limit": "101"}, "'limit' must be an integer between 1 and 100"),
        ({"limit": "ten"}, "'limit' must be an integer between 1 and 100"),
        ({"tag_mode": "some"}, "'tag_mode' must be one of: any, all"),
        ({"tag_match": "fuzzy"}, "'tag_match' must be one of: exact, prefix"),
        ({"min_quality": "1.5"}, "'min_quality' must be a number between 0 and 1"),
        ({"min_quality": "nan"}, "'min_quality' must be a number between 0 and 1"),
        ({"rank_by_quality": "maybe"}, "'rank_by_quality' must be true or false"),
        ({"start": "soon"}, "'start' must be an ISO 8601 timestamp"),
        ({"start": "2025-02-01", "end": "2025-01-01"}, "'start' must not be after 'end'"),
        ({"max_hops": "4"}, "'max_hops' must be an integer between 1 and 3"),
        ({"type": "gossip"}, "Invalid memory type 'gossip'. Must be one of: "),
        ({"type": "Insight\x00"}, "Invalid memory type"),
        ({"type": "Insight", "limit": "-1"}, "'limit' must be an integer between 1 and 100"),
        ({"query": "q" * 2001}, "'query' exceeds maximum length of 2000 characters"),
        ({"query": "nul\x00"}, "'query' contains characters that cannot be searched"),
    ],
)
def test_recall_validation(alice_client, params, message):
    response = alice_client.get("/recall", params)
    assert response.status_code == 400
    assert response.json()["message"].startswith(message)


@pytest.mark.parametrize(
    "query", ["'; DROP TABLE memories_memory; --", "a & b | !c <-> d", "\\ ' \" :* $$", "the of and"]
)
def test_query_metacharacters_and_stopwords_are_harmless(alice_client, facts, query):
    assert alice_client.get("/recall", {"query": query}).status_code == 200


def test_a_rare_query_word_counts_more_than_a_common_one(alice_client, alice):
    for n in range(8):
        MemoryFactory(owner=alice, content=f"Caroline mentioned item {n} on the list")
    rare = str(MemoryFactory(owner=alice, content="Signed up for a pottery course").pk)
    Memory.objects.filter(owner=alice).update(embedding=embeddings.embed("unrelated"))
    results = recall(alice_client, query="Caroline pottery")["results"]
    assert results[0]["id"] == rare
    keyword = {r["id"]: r["score_components"]["keyword"] for r in results}
    assert keyword[rare] > max(value for memory_id, value in keyword.items() if memory_id != rare)


def test_recall_takes_its_parameters_in_a_json_body_too(alice_client):
    query = "数据库" * 450
    alice_client.post("/memory", {"content": "我们选择了数据库", "tags": ["db"]}, format="json")

    response = alice_client.post("/recall", {"query": query, "tags": ["db"], "limit": 3}, format="json")

    assert response.status_code == 200
    assert response.json()["count"] == 1


def test_recall_by_post_checks_parameters_like_get(alice_client):
    response = alice_client.post("/recall", {"limit": 101}, format="json")

    assert response.status_code == 400
    assert response.json()["message"] == "'limit' must be an integer between 1 and 100"
