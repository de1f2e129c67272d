"""The evaluate phase re-evaluates only what time can have changed, once a real run has evaluated all."""

import pytest
from django.utils import timezone

from memories.models import Memory
from quality.consolidation import run_consolidation
from quality.models import QualityAssessment
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def memories(alice, boost_settings):
    """One memory past the timeliness horizon (timeliness 0 for good; protected, so that retention
    keeps it) and one still decaying."""
    settled = MemoryFactory(
        owner=alice, content="The office moved to the harbour", days_old=120, protected=True
    )
    decaying = MemoryFactory(owner=alice, content="The team lunch is on Friday", days_old=5)
    return settled, decaying


def consolidation_assessments(memory):
    return QualityAssessment.objects.filter(memory=memory, trigger="consolidation").count()


def test_the_first_real_run_evaluates_every_live_memory(memories):
    run = run_consolidation(dry_run=False)
    assert run.phases["evaluate"]["evaluated"] == 2
    assert run.phases["evaluate"]["scope"] == "all"


def test_a_later_run_skips_a_memory_whose_timeliness_is_already_zero(memories):
    settled, decaying = memories
    run_consolidation(dry_run=False)
    run = run_consolidation(dry_run=False)
    assert (run.phases["evaluate"]["evaluated"], run.phases["evaluate"]["scope"]) == (1, "moving")
    assert consolidation_assessments(settled) == 1
    assert consolidation_assessments(decaying) == 2


def test_a_later_run_evaluates_a_memory_changed_after_its_last_evaluation(memories):
    settled, _ = memories
    run_consolidation(dry_run=False)
    Memory.objects.filter(pk=settled.pk).update(importance=0.9, updated_at=timezone.now())
    run = run_consolidation(dry_run=False)
    assert run.phases["evaluate"]["evaluated"] == 2
    assert Memory.objects.get(pk=settled.pk).quality_relevance == pytest.approx(0.9)


def test_changed_quality_weights_make_the_next_run_evaluate_every_memory(memories, settings):
    run_consolidation(dry_run=False)
    settings.QUALITY_WEIGHTS = {
        "accuracy": 0.2,
        "completeness": 0.2,
        "consistency": 0.2,
        "timeliness": 0.2,
        "relevance": 0.2,
    }
    run = run_consolidation(dry_run=False)
    assert (run.phases["evaluate"]["evaluated"], run.phases["evaluate"]["scope"]) == (2, "all")


def test_a_dry_run_does_not_count_as_the_run_that_evaluated_everything(memories):
    run_consolidation(dry_run=True)
    run = run_consolidation(dry_run=False)
    assert run.phases["evaluate"]["scope"] == "all"
