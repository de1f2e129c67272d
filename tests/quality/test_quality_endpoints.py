from datetime import timedelta

import pytest
from django.utils import timezone

from memories.models import Memory
from quality.models import QualityAssessment, QualityBoost, QualitySnapshot
from tests.factories import MemoryFactory
from tests.quality.conftest import assert_envelope

pytestmark = pytest.mark.django_db


@pytest.fixture
def scored(alice):
    """Three of alice's memories with effective scores 0.05, 0.55 and 0.95 (the last boosted)."""
    return [
        MemoryFactory(
            owner=alice,
            content=f"A memory scored {score}",
            quality_score=score,
            quality_overall=min(score, 0.8),
            quality_boost_applied=boosted,
            quality_evaluated_at=timezone.now(),
        )
        for score, boosted in [(0.05, False), (0.55, False), (0.95, True)]
    ]


def test_distribution_has_the_mcp_memory_service_shape_plus_histogram(alice_client, scored):
    body = alice_client.get("/api/quality/distribution").json()
    assert body["total_memories"] == 3
    assert (body["high_quality_count"], body["medium_quality_count"], body["low_quality_count"]) == (1, 1, 1)
    assert body["average_score"] == pytest.approx(0.5167, abs=1e-4)
    assert body["provider_breakdown"] == {"association_boost": 1, "dimensions": 2}
    assert [m["quality_score"] for m in body["top_memories"]] == [0.95, 0.55, 0.05]
    assert [m["quality_score"] for m in body["bottom_memories"]] == [0.05, 0.55, 0.95]
    assert body["quality_range"] == {"min": 0.0, "max": 1.0}
    assert [bucket["count"] for bucket in body["histogram"]] == [1, 0, 0, 0, 0, 1, 0, 0, 0, 1]
    assert body["histogram"][9] == {"min": 0.9, "max": 1.0, "count": 1}
    assert body["boosted_count"] == 1


def test_distribution_filters_by_quality_range(alice_client, scored):
    body = alice_client.get("/api/quality/distribution", {"min_quality": 0.5, "max_quality": 0.6}).json()
    assert body["total_memories"] == 1
    assert body["quality_range"] == {"min": 0.5, "max": 0.6}


@pytest.mark.parametrize(
    "params",
    [
        {"min_quality": "abc"},
        {"min_quality": 2},
        {"max_quality": -1},
        {"min_quality": 0.8, "max_quality": 0.2},
    ],
)
def test_distribution_rejects_a_bad_range(alice_client, params):
    assert_envelope(alice_client.get("/api/quality/distribution", params), 400)


def test_distribution_counts_only_the_callers_memories(bob_client, scored):
    assert bob_client.get("/api/quality/distribution").json()["total_memories"] == 0


def test_memory_quality_shows_dimensions_and_histories(alice, alice_client):
    memory_id = str(MemoryFactory(owner=alice, content="The user prefers dark mode").pk)
    memory = Memory.objects.get(pk=memory_id)
    QualityBoost.objects.create(
        memory=memory, kind="applied", quality_before=0.5, quality_after=0.6, factor=1.2
    )
    body = alice_client.get(f"/api/quality/memories/{memory_id}").json()
    assert body["quality"]["dimensions"]["accuracy"] == pytest.approx(0.70)
    assert body["quality"]["tier"] in {"low", "medium", "high"}
    assert [row["trigger"] for row in body["assessments"]] == ["store"]
    assert body["boosts"][0]["quality_after"] == pytest.approx(0.6)
    assert body["provenance"]["source_type"] == "user_input"
    assert body["inconsistencies"] == []


def test_memory_quality_of_another_users_memory_is_not_found(alice, alice_client, bob_client):
    memory_id = str(MemoryFactory(owner=alice, content="Alice's secret").pk)
    assert_envelope(bob_client.get(f"/api/quality/memories/{memory_id}"), 404, "Memory not found")


def test_memory_quality_rejects_a_malformed_id(alice_client):
    assert_envelope(alice_client.get("/api/quality/memories/nope"), 400, "memory_id must be a valid UUID")


def test_evaluate_given_ids_records_an_assessment(alice, alice_client):
    memory_id = str(MemoryFactory(owner=alice, content="The user prefers dark mode").pk)
    response = alice_client.post("/api/quality/evaluate", {"memory_ids": [memory_id]}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["evaluated"] == 1
    assert body["memories"][0]["id"] == memory_id
    assert QualityAssessment.objects.filter(memory_id=memory_id, trigger="evaluate").count() == 1


def test_evaluate_with_a_query_makes_relevance_the_cosine_to_it(alice, alice_client, embed):
    memory_id = str(MemoryFactory(owner=alice, content="The user prefers dark mode").pk)
    query = "Which colour scheme does the user like?"
    body = alice_client.post(
        "/api/quality/evaluate", {"memory_ids": [memory_id], "query": query}, format="json"
    ).json()
    expected = float(embed(query) @ embed("The user prefers dark mode"))
    assert body["memories"][0]["relevance"] == pytest.approx(expected, abs=1e-4)
    assert body["stored"] is False


def test_evaluating_for_a_query_leaves_the_stored_scores(alice, alice_client):
    memory = MemoryFactory(owner=alice, content="The user prefers dark mode")
    before = Memory.objects.values("quality_score", "quality_relevance", "quality_evaluated_at").get(
        pk=memory.pk
    )
    assessments = QualityAssessment.objects.count()

    response = alice_client.post(
        "/api/quality/evaluate",
        {"memory_ids": [str(memory.pk)], "query": "Which database do we use for billing?"},
        format="json",
    )

    assert response.status_code == 200
    assert response.json()["memories"][0]["relevance"] != before["quality_relevance"]
    after = Memory.objects.values("quality_score", "quality_relevance", "quality_evaluated_at").get(
        pk=memory.pk
    )
    assert after == before
    assert QualityAssessment.objects.count() == assessments


def test_a_query_is_scored_for_given_memories_not_for_all(alice, alice_client):
    response = alice_client.post("/api/quality/evaluate", {"all": True, "query": "x"}, format="json")

    assert response.status_code == 400
    assert response.json()["message"] == "'query' scores given 'memory_ids' (at most 1000), not \"all\""


def test_evaluate_all_evaluates_every_live_memory_of_the_caller(alice, bob, alice_client, bob_client):
    MemoryFactory(owner=alice, content="First")
    MemoryFactory(owner=alice, content="Second")
    MemoryFactory(owner=bob, content="Bob's")
    body = alice_client.post("/api/quality/evaluate", {"all": True}, format="json").json()
    assert body["evaluated"] == 2


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"memory_ids": []},
        {"memory_ids": ["nope"]},
        {"memory_ids": "x"},
        {"all": True, "memory_ids": [None]},
        [],
    ],
)
def test_evaluate_rejects_bad_bodies(alice_client, body):
    assert_envelope(alice_client.post("/api/quality/evaluate", body, format="json"), 400)


def test_evaluate_of_another_users_memory_is_not_found(alice, alice_client, bob_client):
    memory_id = str(MemoryFactory(owner=alice, content="Alice's secret").pk)
    response = bob_client.post("/api/quality/evaluate", {"memory_ids": [memory_id]}, format="json")
    assert_envelope(response, 404, "Memory not found")


def test_low_lists_memories_below_the_threshold_worst_first(alice_client, scored):
    body = alice_client.get("/api/quality/low").json()
    assert [row["quality_score"] for row in body["results"]] == [0.05]
    body = alice_client.get("/api/quality/low", {"threshold": 0.9}).json()
    assert [row["quality_score"] for row in body["results"]] == [0.05, 0.55]
    assert body["count"] == 2


def test_low_rejects_a_bad_threshold(alice_client):
    assert_envelope(alice_client.get("/api/quality/low", {"threshold": "high"}), 400)


def test_improvements_suggest_fixes_for_poor_memories(alice_client, alice):
    poor = MemoryFactory(owner=alice, content="Hi", days_old=120, source_type="tool_output", importance=0.0)
    MemoryFactory(owner=alice, content="A well-kept memory " + "x" * 300, source_type="bootstrapped")
    alice_client.post("/api/quality/evaluate", {"all": True}, format="json")
    body = alice_client.get("/api/quality/improvements").json()
    assert body["count"] == 1
    [item] = body["results"]
    assert item["memory_id"] == str(poor.pk)
    codes = [suggestion["code"] for suggestion in item["suggestions"]]
    assert codes == ["add_detail", "find_supporting_evidence", "verify_or_archive"]
    assert all(suggestion["message"] for suggestion in item["suggestions"])


def test_boosts_list_the_callers_boost_history(alice_client, bob_client, scored):
    QualityBoost.objects.create(
        memory=scored[2], kind="applied", quality_before=0.79, quality_after=0.95, factor=1.2
    )
    body = alice_client.get("/api/quality/boosts").json()
    assert body["count"] == 1
    assert body["results"][0]["memory_id"] == str(scored[2].pk)
    assert bob_client.get("/api/quality/boosts").json()["count"] == 0


def test_trends_report_daily_assessments_and_snapshots(alice_client, alice):
    memory_id = str(MemoryFactory(owner=alice, content="The user prefers dark mode").pk)
    alice_client.post("/api/quality/evaluate", {"memory_ids": [memory_id]}, format="json")
    QualityAssessment.objects.filter(memory_id=memory_id, trigger="store").update(
        evaluated_at=timezone.now() - timedelta(days=3), overall=0.2
    )
    QualitySnapshot.objects.create(
        owner=alice, total=1, average_quality=0.4, high_count=0, medium_count=0, low_count=1
    )
    body = alice_client.get("/api/quality/trends", {"days": 7}).json()
    assert body["days"] == 7
    assert [day["evaluations"] for day in body["daily"]] == [1, 1]
    assert body["trends"]["overall"]["trend"] == "improving"
    assert len(body["snapshots"]) == 1
    assert body["current"]["total_memories"] == 1


@pytest.mark.parametrize("days", ["0", "366", "abc", "-3"])
def test_trends_reject_days_outside_1_to_365(alice_client, days):
    assert_envelope(alice_client.get("/api/quality/trends", {"days": days}), 400)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/quality/distribution"),
        ("get", "/api/quality/report"),
        ("post", "/api/quality/evaluate"),
        ("get", "/api/quality/inconsistencies"),
        ("post", "/api/quality/inconsistencies/detect"),
        ("get", "/api/quality/trends"),
    ],
)
def test_quality_endpoints_need_a_token(anon_client, method, path):
    assert_envelope(getattr(anon_client, method)(path), 401)


def test_a_non_numeric_finding_id_is_not_found(alice_client):
    assert_envelope(alice_client.post("/api/quality/inconsistencies/abc/resolve", {}, format="json"), 404)


def test_a_wrong_method_answers_405_in_the_envelope(alice_client):
    assert_envelope(alice_client.post("/api/quality/distribution"), 405)


def test_evaluate_refuses_more_than_1000_ids(alice_client):
    ids = [f"00000000-0000-0000-0000-{n:012d}" for n in range(1001)]
    assert_envelope(alice_client.post("/api/quality/evaluate", {"memory_ids": ids}, format="json"), 400)


def test_evaluate_refuses_a_non_json_body(alice_client):
    response = alice_client.post("/api/quality/evaluate", "memory_ids=1", content_type="text/plain")
    assert_envelope(response, 415)
