import math

import pytest

from quality.metrics import evaluate_memories
from quality.models import Inconsistency, QualityAssessment, Trigger
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db

TWO_HUNDRED = "x" * 200


def evaluated(memory, query_embedding=None):
    evaluate_memories([memory.id], Trigger.EVALUATE, query_embedding=query_embedding)
    memory.refresh_from_db()
    return memory


@pytest.mark.parametrize(
    ("source_type", "is_explicit", "expected"),
    [
        ("bootstrapped", False, 0.95),
        ("user_input", False, 0.70),
        ("user_input", True, 0.90),
        ("agent", False, 0.60),
        ("tool_output", False, 0.50),
        ("something_else", False, 0.50),
    ],
)
def test_accuracy_is_the_base_confidence_of_the_source_type(alice, source_type, is_explicit, expected):
    memory = evaluated(
        MemoryFactory(owner=alice, content="A fact", source_type=source_type, is_explicit=is_explicit)
    )
    assert memory.quality_accuracy == pytest.approx(expected)
    assert memory.confidence == pytest.approx(expected)


@pytest.mark.parametrize(("sources", "bonus"), [(1, 0.05), (2, 0.10), (4, 0.20), (6, 0.20)])
def test_each_distinct_corroborating_source_adds_five_points_up_to_twenty(alice, sources, bonus):
    names = [f"source-{n}" for n in range(sources)]
    memory = evaluated(
        MemoryFactory(owner=alice, content="A fact", source_type="agent", corroborating_sources=names)
    )
    assert memory.quality_accuracy == pytest.approx(0.60 + bonus)


def test_accuracy_never_exceeds_one(alice):
    names = ["a", "b", "c", "d"]
    memory = evaluated(
        MemoryFactory(owner=alice, content="A fact", source_type="bootstrapped", corroborating_sources=names)
    )
    assert memory.quality_accuracy == pytest.approx(1.0)


def test_a_repeated_source_adds_confidence_only_once(alice):
    memory = evaluated(
        MemoryFactory(owner=alice, content="A fact", source_type="agent", corroborating_sources=["a", "a"])
    )
    assert memory.quality_accuracy == pytest.approx(0.65)


def test_completeness_of_200_characters_without_metadata_is_one_half(alice):
    assert evaluated(MemoryFactory(owner=alice, content=TWO_HUNDRED)).quality_completeness == pytest.approx(
        0.5
    )


def test_completeness_of_200_characters_with_metadata_is_six_tenths(alice):
    memory = evaluated(MemoryFactory(owner=alice, content=TWO_HUNDRED, metadata={"project": "memsite"}))
    assert memory.quality_completeness == pytest.approx(0.6)


def test_completeness_of_hi_is_0_1213(alice):
    assert round(evaluated(MemoryFactory(owner=alice, content="Hi")).quality_completeness, 4) == 0.1213


def test_completeness_counts_characters_not_bytes(alice):
    assert evaluated(MemoryFactory(owner=alice, content="记" * 200)).quality_completeness == pytest.approx(
        0.5
    )


def test_completeness_never_exceeds_one(alice):
    memory = evaluated(MemoryFactory(owner=alice, content="y" * 2000, metadata={"k": 1}))
    assert memory.quality_completeness == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("sources", "expected"),
    [([], 0.3), (["a"], 0.5708), (["a", "b"], 0.7292), (["a", "b", "c", "d", "e"], 1.0)],
)
def test_consistency_grows_with_distinct_corroborating_sources(alice, sources, expected):
    memory = evaluated(MemoryFactory(owner=alice, content="A fact", corroborating_sources=sources))
    assert round(memory.quality_consistency, 4) == expected


def test_a_repeated_source_changes_consistency_nothing(alice):
    memory = evaluated(MemoryFactory(owner=alice, content="A fact", corroborating_sources=["a", "a", "a"]))
    assert round(memory.quality_consistency, 4) == 0.5708


def test_an_open_contradiction_lowers_consistency_by_half_its_severity(alice):
    first = MemoryFactory(owner=alice, content="The user is online", corroborating_sources=["a"])
    second = MemoryFactory(owner=alice, content="The user is not online")
    Inconsistency.objects.create(
        type="contradiction", memory1=first, memory2=second, severity=0.8, description="test"
    )
    assert round(evaluated(first).quality_consistency, 4) == round(0.5708 * 0.6, 4)
    assert evaluated(second).quality_consistency == pytest.approx(0.3 * 0.6)


def test_a_dismissed_contradiction_does_not_lower_consistency(alice):
    first = MemoryFactory(owner=alice, content="The user is online")
    second = MemoryFactory(owner=alice, content="The user is not online")
    Inconsistency.objects.create(
        type="contradiction", memory1=first, memory2=second, severity=0.8, description="t", status="dismissed"
    )
    assert evaluated(first).quality_consistency == pytest.approx(0.3)


@pytest.mark.parametrize(("days", "expected"), [(0, 1.0), (30, 0.7408), (90, 0.4066), (91, 0.0)])
def test_timeliness_decays_one_percent_a_day_until_max_age(alice, days, expected):
    assert (
        round(evaluated(MemoryFactory(owner=alice, content="A fact", days_old=days)).quality_timeliness, 4)
        == expected
    )


def test_timeliness_follows_the_configured_decay_and_max_age(alice, settings):
    settings.QUALITY_TIMELINESS_DECAY = 0.02
    settings.QUALITY_MAX_AGE_DAYS = 200
    memory = evaluated(MemoryFactory(owner=alice, content="A fact", days_old=100))
    assert memory.quality_timeliness == pytest.approx(math.exp(-2), abs=1e-4)


def test_relevance_without_a_query_is_the_importance(alice):
    assert evaluated(
        MemoryFactory(owner=alice, content="A fact", importance=0.8)
    ).quality_relevance == pytest.approx(0.8)


def test_relevance_for_a_query_is_the_cosine_similarity(alice, embed):
    memory = MemoryFactory(owner=alice, content="The user prefers dark mode")
    query = embed("Which colour scheme does the user like?")
    expected = float(query @ embed("The user prefers dark mode"))
    assert evaluated(memory, query_embedding=query).quality_relevance == pytest.approx(expected, abs=1e-4)


def test_overall_is_the_weighted_sum_of_the_dimensions(alice):
    memory = evaluated(
        MemoryFactory(
            owner=alice, content=TWO_HUNDRED, days_old=30, importance=0.4, corroborating_sources=["a"]
        )
    )
    expected = 0.3 * 0.75 + 0.2 * 0.5 + 0.2 * 0.5708 + 0.15 * 0.7408 + 0.15 * 0.4
    assert memory.quality_overall == pytest.approx(expected, abs=1e-4)
    assert memory.quality_score == pytest.approx(memory.quality_overall)
    assert memory.quality_evaluated_at is not None


def test_overall_uses_the_configured_weights_and_records_them(alice, settings):
    weights = {"accuracy": 1.0, "completeness": 0, "consistency": 0, "timeliness": 0, "relevance": 0}
    settings.QUALITY_WEIGHTS = weights
    memory = MemoryFactory(owner=alice, content="A fact", source_type="agent")  # evaluated by the store
    assert memory.quality_overall == pytest.approx(0.6)
    assert QualityAssessment.objects.get(memory=memory).weights == weights


def test_an_applied_boost_is_kept_on_the_effective_score(alice):
    memory = evaluated(
        MemoryFactory(owner=alice, content="A fact", quality_boost_applied=True, quality_boost_factor=1.2)
    )
    assert memory.quality_score == pytest.approx(min(1, memory.quality_overall * 1.2))


def test_every_evaluation_is_kept_as_an_assessment(alice):
    memory = MemoryFactory(owner=alice, content="A fact")  # the store's own evaluation
    evaluate_memories([memory.id], Trigger.EVALUATE)
    history = list(QualityAssessment.objects.filter(memory=memory).order_by("id"))
    assert [row.trigger for row in history] == ["store", "evaluate"]
    memory.refresh_from_db()
    assert history[-1].overall == pytest.approx(memory.quality_overall)
    assert history[-1].accuracy == pytest.approx(memory.quality_accuracy)
