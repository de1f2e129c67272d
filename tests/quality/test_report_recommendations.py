import pytest

from memories.models import Memory
from quality.models import Inconsistency
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db

HEALTHY = {
    "quality_score": 0.8,
    "quality_overall": 0.8,
    "quality_accuracy": 0.8,
    "quality_completeness": 0.8,
    "quality_consistency": 0.8,
    "quality_timeliness": 0.8,
    "quality_relevance": 0.8,
}


@pytest.fixture
def healthy(alice):
    """Eight of alice's memories with every stored quality value at 0.8."""
    return [MemoryFactory(owner=alice, content=f"Healthy memory number {n}", **HEALTHY) for n in range(8)]


def report(client):
    response = client.get("/api/quality/report")
    assert response.status_code == 200
    return response.json()


def codes(client):
    return [rule["code"] for rule in report(client)["recommendations"]]


def findings(memories, type_, count, status="open"):
    for n in range(count):
        Inconsistency.objects.create(
            type=type_,
            memory1=memories[n],
            memory2=memories[n + 1] if type_ in ("duplicate", "contradiction") else None,
            severity=0.9,
            description="test",
            status=status,
        )


def test_a_healthy_collection_gets_no_recommendations(alice_client, healthy):
    body = report(alice_client)
    assert body["recommendations"] == []
    assert body["top_issues"] == []
    assert body["stats"]["total_memories"] == 8
    assert body["stats"]["average_quality"] == pytest.approx(0.8)
    assert body["dimension_scores"] == {name: pytest.approx(0.8) for name in body["dimension_scores"]}


def test_an_average_below_the_warning_threshold_is_reported(alice_client, alice, healthy):
    Memory.objects.filter(owner=alice).update(quality_score=0.45)
    assert "low_average_quality" in codes(alice_client)


@pytest.mark.parametrize("dimension", ["accuracy", "completeness", "consistency", "timeliness"])
def test_a_weak_dimension_average_is_reported(alice_client, alice, healthy, dimension):
    Memory.objects.filter(owner=alice).update(**{f"quality_{dimension}": 0.55})
    assert codes(alice_client) == [f"weak_{dimension}"]


def test_weak_relevance_alone_is_not_a_recommendation(alice_client, alice, healthy):
    Memory.objects.filter(owner=alice).update(quality_relevance=0.2)
    assert codes(alice_client) == []


def test_any_open_contradiction_is_reported(alice_client, healthy):
    findings(healthy, "contradiction", 1)
    body = report(alice_client)
    assert [rule["code"] for rule in body["recommendations"]] == ["contradictions_found"]
    assert body["recommendations"][0]["message"].startswith("1 contradictions found")
    assert body["inconsistency_counts"]["contradiction"] == 1


def test_a_dismissed_contradiction_is_not_reported(alice_client, healthy):
    findings(healthy, "contradiction", 1, status="dismissed")
    assert codes(alice_client) == []


def test_more_than_three_duplicates_are_reported(alice_client, healthy):
    findings(healthy, "duplicate", 4)
    assert codes(alice_client) == ["duplicates_found"]


def test_three_duplicates_are_not_reported(alice_client, healthy):
    findings(healthy, "duplicate", 3)
    assert codes(alice_client) == []


def test_more_than_a_quarter_of_low_quality_memories_is_reported(alice_client, healthy):
    Memory.objects.filter(pk__in=[m.pk for m in healthy[:3]]).update(quality_score=0.4)
    assert "many_low_quality" in codes(alice_client)


def test_exactly_a_quarter_of_low_quality_memories_is_not_reported(alice_client, healthy):
    Memory.objects.filter(pk__in=[m.pk for m in healthy[:2]]).update(quality_score=0.4)
    assert codes(alice_client) == []


def test_outdated_and_low_confidence_findings_are_reported(alice_client, healthy):
    findings(healthy, "outdated", 2)
    findings(healthy, "low_confidence", 1)
    assert codes(alice_client) == ["outdated_found", "low_confidence_found"]


def test_top_issues_count_memories_with_a_weak_dimension(alice_client, healthy):
    Memory.objects.filter(pk__in=[m.pk for m in healthy[:3]]).update(quality_timeliness=0.1)
    Memory.objects.filter(pk=healthy[0].pk).update(quality_accuracy=0.2)
    issues = report(alice_client)["top_issues"]
    assert [(issue["code"], issue["count"]) for issue in issues] == [
        ("low_timeliness", 3),
        ("low_accuracy", 1),
    ]
    assert issues[0]["message"].startswith("3 memories")


def test_the_report_covers_only_the_callers_memories(bob_client, healthy):
    findings(healthy, "contradiction", 1)
    body = report(bob_client)
    assert body["stats"]["total_memories"] == 0
    assert body["inconsistency_counts"]["contradiction"] == 0
    assert body["recommendations"] == []
