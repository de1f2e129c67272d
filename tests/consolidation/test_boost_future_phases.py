"""The seed's future phases: connected-quality gate, boost decay and bidirectional boost."""

from datetime import timedelta

import factory
import pytest
from django.utils import timezone

from graph.models import Association
from memories.models import Memory
from quality.consolidation import boost_phase
from quality.models import QualityBoost
from tests.consolidation.conftest import fresh, hub
from tests.factories import AssociationFactory, MemoryFactory

pytestmark = pytest.mark.django_db


def test_gate_off_boosts_a_memory_with_weak_neighbours(alice, boost_settings):
    memory = hub(alice, 6, quality=0.5, neighbour_quality=0.3)

    boost_phase()

    assert fresh(memory).quality_boost_applied is True


def test_gate_on_refuses_a_memory_whose_neighbours_are_weak(alice, boost_settings):
    boost_settings.BOOST_MIN_CONNECTED_QUALITY = 0.7
    weak = hub(alice, 6, quality=0.5, neighbour_quality=0.3)
    strong = hub(alice, 6, quality=0.5, neighbour_quality=0.75)

    boost_phase()

    assert fresh(weak).quality_boost_applied is False
    assert fresh(strong).quality_boost_applied is True


def _age_boost(memory, days):
    Memory.objects.filter(pk=memory.pk).update(quality_boost_date=timezone.now() - timedelta(days=days))


def _drop_links(memory, keep):
    links = Association.objects.filter(source=memory).order_by("pk")
    Association.objects.filter(pk__in=list(links.values_list("pk", flat=True)[keep:])).delete()


def test_decay_removes_an_old_boost_that_lost_most_of_its_connections(alice, boost_settings):
    boost_settings.BOOST_DECAY_ENABLED = True
    memory = hub(alice, 10, quality=0.5)
    boost_phase()
    _age_boost(memory, 91)
    _drop_links(memory, keep=4)

    counts = boost_phase()

    memory = fresh(memory)
    assert counts["decayed"] == 1
    assert memory.quality_boost_applied is False
    assert memory.quality_score == pytest.approx(0.5)
    assert memory.original_quality_before_boost is None
    assert "quality_boost_applied" not in memory.metadata
    decayed = QualityBoost.objects.get(memory=memory, kind="decayed")
    assert (decayed.connection_count, decayed.quality_before, decayed.quality_after) == (
        4,
        pytest.approx(0.6),
        pytest.approx(0.5),
    )


def test_decay_keeps_a_boost_younger_than_ninety_days(alice, boost_settings):
    boost_settings.BOOST_DECAY_ENABLED = True
    memory = hub(alice, 10, quality=0.5)
    boost_phase()
    _age_boost(memory, 80)
    _drop_links(memory, keep=4)

    boost_phase()

    assert fresh(memory).quality_boost_applied is True


def test_decay_keeps_a_boost_with_half_its_connections(alice, boost_settings):
    boost_settings.BOOST_DECAY_ENABLED = True
    memory = hub(alice, 10, quality=0.5)
    boost_phase()
    _age_boost(memory, 120)
    _drop_links(memory, keep=5)

    boost_phase()

    assert fresh(memory).quality_boost_applied is True


def test_decay_off_keeps_every_boost(alice, boost_settings):
    memory = hub(alice, 10, quality=0.5)
    boost_phase()
    _age_boost(memory, 200)
    _drop_links(memory, keep=0)

    counts = boost_phase()

    assert counts["decayed"] == 0
    assert fresh(memory).quality_boost_applied is True


def test_bidirectional_off_gives_no_boost_from_a_strong_neighbour(alice, boost_settings):
    weak, strong = MemoryFactory.create_batch(2, owner=alice, quality=0.5)
    Memory.objects.filter(pk=strong.pk).update(quality_overall=0.85, quality_score=0.85)
    AssociationFactory(source=strong, target=weak)

    boost_phase()

    assert fresh(weak).quality_boost_applied is False


def test_bidirectional_on_lifts_a_weak_memory_linked_to_a_strong_one_by_five_percent(alice, boost_settings):
    boost_settings.BOOST_BIDIRECTIONAL_ENABLED = True
    weak, strong, middling = MemoryFactory.create_batch(3, owner=alice, quality=0.5)
    Memory.objects.filter(pk=strong.pk).update(quality_overall=0.85, quality_score=0.85)
    Memory.objects.filter(pk=middling.pk).update(quality_overall=0.65, quality_score=0.65)
    AssociationFactory(source=strong, target=weak)
    AssociationFactory(source=middling, target=strong)

    counts = boost_phase()
    again = boost_phase()

    weak = fresh(weak)
    assert counts["bidirectional"] == 1
    assert again["bidirectional"] == again["recomputed"] == 0
    assert weak.quality_score == pytest.approx(0.525)
    assert weak.quality_boost_reason == "bidirectional_high_quality"
    assert weak.original_quality_before_boost == pytest.approx(0.5)
    assert fresh(middling).quality_boost_applied is False
    assert QualityBoost.objects.get(memory=weak).kind == "bidirectional"


def test_a_bidirectional_boost_gives_way_to_an_association_boost(alice, boost_settings):
    boost_settings.BOOST_BIDIRECTIONAL_ENABLED = True
    weak, strong = MemoryFactory.create_batch(2, owner=alice, quality=0.5)
    Memory.objects.filter(pk=strong.pk).update(quality_overall=0.85, quality_score=0.85)
    AssociationFactory(source=strong, target=weak)
    boost_phase()
    neighbours = MemoryFactory.create_batch(4, owner=alice, quality=0.5)
    AssociationFactory.create_batch(4, source=weak, target=factory.Iterator(neighbours))

    counts = boost_phase()

    weak = fresh(weak)
    assert counts["applied"] == 1
    assert weak.quality_boost_reason == "association_connections"
    assert weak.quality_score == pytest.approx(0.6)
    assert weak.original_quality_before_boost == pytest.approx(0.5)
    assert weak.quality_boost_connection_count == 5
    kinds = list(QualityBoost.objects.filter(memory=weak).order_by("id").values_list("kind", flat=True))
    assert kinds == ["bidirectional", "applied"]
