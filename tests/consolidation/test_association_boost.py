"""The seed's association boost cases, run through the boost phase alone."""

import logging

import pytest

from quality.consolidation import boost_phase
from quality.models import QualityBoost
from tests.consolidation.conftest import fresh, hub
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


def test_ten_connections_boost_quality_half_to_point_six(alice, boost_settings):
    memory = hub(alice, 10, quality=0.5)

    counts = boost_phase()

    memory = fresh(memory)
    assert counts["applied"] == 1
    assert memory.quality_score == pytest.approx(0.6)
    assert memory.quality_overall == pytest.approx(0.5)
    assert memory.original_quality_before_boost == pytest.approx(0.5)
    assert memory.quality_boost_applied is True


def test_three_connections_under_a_minimum_of_five_get_no_boost(alice, boost_settings):
    memory = hub(alice, 3, quality=0.5)

    boost_phase()

    memory = fresh(memory)
    assert memory.quality_score == pytest.approx(0.5)
    assert memory.quality_boost_applied is False
    assert not QualityBoost.objects.filter(memory=memory).exists()


def test_boost_is_capped_at_one(alice, boost_settings):
    boost_settings.BOOST_FACTOR = 1.5
    memory = hub(alice, 6, quality=0.9)

    boost_phase()

    assert fresh(memory).quality_score == pytest.approx(1.0)


def test_disabled_boost_changes_nothing(alice, boost_settings):
    boost_settings.BOOST_ENABLED = False
    memory = hub(alice, 10, quality=0.5)

    counts = boost_phase()

    assert counts["applied"] == 0
    assert fresh(memory).quality_score == pytest.approx(0.5)
    assert fresh(memory).quality_boost_applied is False


def test_boost_persists_the_seed_fields_on_the_row_and_in_metadata(alice, boost_settings):
    boost_settings.BOOST_FACTOR = 1.3
    memory = hub(alice, 8, quality=0.6, metadata={"project": "billing"})

    boost_phase()

    memory = fresh(memory)
    assert memory.quality_score == pytest.approx(0.78)
    assert memory.quality_boost_reason == "association_connections"
    assert memory.quality_boost_connection_count == 8
    assert memory.quality_boost_date is not None
    assert memory.quality_boost_factor == pytest.approx(1.3)
    meta = memory.metadata
    assert meta["project"] == "billing"
    assert meta["quality_boost_applied"] is True
    assert meta["quality_boost_reason"] == "association_connections"
    assert meta["quality_boost_connection_count"] == 8
    assert meta["original_quality_before_boost"] == pytest.approx(0.6)
    assert meta["quality_boost_date"].startswith(memory.quality_boost_date.strftime("%Y-%m-%dT%H:%M"))
    history = QualityBoost.objects.get(memory=memory)
    assert (history.kind, history.connection_count) == ("applied", 8)
    assert history.quality_before == pytest.approx(0.6)
    assert history.quality_after == pytest.approx(0.78)


def test_a_second_run_changes_nothing(alice, boost_settings):
    memory = hub(alice, 10, quality=0.5)
    boost_phase()
    first = fresh(memory)

    counts = boost_phase()

    second = fresh(memory)
    assert counts["applied"] == counts["recomputed"] == 0
    assert second.quality_score == pytest.approx(0.6)
    assert second.original_quality_before_boost == pytest.approx(0.5)
    assert second.quality_boost_date == first.quality_boost_date
    assert QualityBoost.objects.filter(memory=memory).count() == 1


def test_a_boosted_memory_is_recomputed_from_its_current_overall_quality(alice, boost_settings):
    memory = hub(alice, 10, quality=0.5)
    boost_phase()
    type(memory).objects.filter(pk=memory.pk).update(quality_overall=0.4, quality_score=0.48)

    counts = boost_phase()

    memory = fresh(memory)
    assert counts["recomputed"] == 1
    assert memory.quality_score == pytest.approx(0.48)
    assert memory.original_quality_before_boost == pytest.approx(0.5)
    kinds = list(QualityBoost.objects.filter(memory=memory).order_by("id").values_list("kind", flat=True))
    assert kinds == ["applied", "recomputed"]
    recomputed = QualityBoost.objects.get(memory=memory, kind="recomputed")
    assert (recomputed.quality_before, recomputed.quality_after) == pytest.approx((0.6, 0.48))


def test_a_changed_factor_recomputes_without_compounding(alice, boost_settings):
    memory = hub(alice, 10, quality=0.5)
    boost_phase()
    boost_settings.BOOST_FACTOR = 1.4

    boost_phase()
    boost_phase()

    memory = fresh(memory)
    assert memory.quality_score == pytest.approx(0.7)
    assert memory.original_quality_before_boost == pytest.approx(0.5)
    assert QualityBoost.objects.filter(memory=memory, kind="recomputed").count() == 1


def test_perfect_quality_gets_no_boost(alice, boost_settings):
    memory = hub(alice, 10, quality=1.0)

    boost_phase()

    memory = fresh(memory)
    assert memory.quality_score == pytest.approx(1.0)
    assert memory.quality_boost_applied is False


def test_each_boost_logs_the_seeds_two_lines(alice, boost_settings, caplog):
    boost_settings.BOOST_FACTOR = 1.2
    memory = hub(alice, 8, quality=0.5)
    short = memory.pk.hex[:12]

    with caplog.at_level(logging.DEBUG, logger="quality.consolidation"):
        boost_phase()

    lines = [(record.levelno, record.getMessage()) for record in caplog.records]
    assert (
        logging.DEBUG,
        f"Association quality boost: {short} quality 0.500 → 0.600 (8 connections)",
    ) in lines
    assert (logging.INFO, f"Persisting association quality boost for {short}: 0.500 → 0.600") in lines


def test_archived_memories_are_not_boosted(alice, boost_settings):
    memory = hub(alice, 10, quality=0.5)
    type(memory).objects.filter(pk=memory.pk).update(archived_at="2026-01-01T00:00:00Z")

    boost_phase()

    assert fresh(memory).quality_boost_applied is False


def test_only_well_connected_memories_of_many_are_boosted(alice, boost_settings):
    boosted = hub(alice, 5, quality=0.5)
    loners = MemoryFactory.create_batch(3, owner=alice, quality=0.5)

    counts = boost_phase()

    assert counts["applied"] == 1
    assert fresh(boosted).quality_boost_applied is True
    assert not any(fresh(memory).quality_boost_applied for memory in loners)
