"""Which links count as connections for the association boost."""

import pytest
from django.utils import timezone

from memories.models import Memory
from quality.consolidation import boost_phase
from tests.consolidation.conftest import fresh, link, make_memories

pytestmark = pytest.mark.django_db


def test_a_neighbour_linked_both_ways_and_by_two_types_counts_once(alice, boost_settings):
    centre, *neighbours = make_memories(alice, 6)
    for neighbour in neighbours[:4]:
        link(centre, neighbour)
    link(neighbours[0], centre)
    link(centre, neighbours[0], "LEADS_TO")
    link(neighbours[1], centre, "PART_OF")

    boost_phase()

    assert fresh(centre).quality_boost_applied is False
    link(neighbours[4], centre)
    boost_phase()
    assert fresh(centre).quality_boost_connection_count == 5


def test_incoming_links_count_like_outgoing_ones(alice, boost_settings):
    centre, *neighbours = make_memories(alice, 6)
    for neighbour in neighbours:
        link(neighbour, centre)

    boost_phase()

    assert fresh(centre).quality_boost_connection_count == 5


def test_archived_neighbours_do_not_count(alice, boost_settings):
    centre, *neighbours = make_memories(alice, 6)
    for neighbour in neighbours:
        link(centre, neighbour)
    Memory.objects.filter(pk=neighbours[0].pk).update(archived_at=timezone.now())

    boost_phase()

    assert fresh(centre).quality_boost_applied is False


def test_enrichment_edges_do_not_count(alice, boost_settings):
    centre, *neighbours = make_memories(alice, 6)
    for neighbour in neighbours[:4]:
        link(centre, neighbour)
    link(centre, neighbours[4], "SIMILAR_TO", origin="enrichment")
    link(neighbours[4], centre, "PRECEDED_BY", origin="enrichment")

    boost_phase()

    assert fresh(centre).quality_boost_applied is False


def test_enrichment_edges_count_when_the_setting_says_so(alice, boost_settings):
    boost_settings.BOOST_COUNT_ENRICHMENT_EDGES = True
    centre, *neighbours = make_memories(alice, 6)
    for neighbour in neighbours[:4]:
        link(centre, neighbour)
    link(centre, neighbours[4], "SIMILAR_TO", origin="enrichment")

    boost_phase()

    assert fresh(centre).quality_boost_connection_count == 5


def test_consolidation_discovered_edges_count(alice, boost_settings):
    centre, *neighbours = make_memories(alice, 6)
    for neighbour in neighbours[:4]:
        link(centre, neighbour)
    link(centre, neighbours[4], "DISCOVERED", origin="consolidation")

    boost_phase()

    assert fresh(centre).quality_boost_connection_count == 5
