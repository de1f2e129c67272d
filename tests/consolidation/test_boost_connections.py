"""Which links count as connections for the association boost."""

import factory
import pytest
from django.utils import timezone

from memories.models import Memory
from quality.consolidation import boost_phase
from tests.consolidation.conftest import fresh
from tests.factories import AssociationFactory, MemoryFactory

pytestmark = pytest.mark.django_db


def test_a_neighbour_linked_both_ways_and_by_two_types_counts_once(alice, boost_settings):
    centre, *neighbours = MemoryFactory.create_batch(6, owner=alice)
    AssociationFactory.create_batch(4, source=centre, target=factory.Iterator(neighbours[:4]))
    AssociationFactory(source=neighbours[0], target=centre)
    AssociationFactory(source=centre, target=neighbours[0], relation_type="LEADS_TO")
    AssociationFactory(source=neighbours[1], target=centre, relation_type="PART_OF")

    boost_phase()

    assert fresh(centre).quality_boost_applied is False
    AssociationFactory(source=neighbours[4], target=centre)
    boost_phase()
    assert fresh(centre).quality_boost_connection_count == 5


def test_incoming_links_count_like_outgoing_ones(alice, boost_settings):
    centre, *neighbours = MemoryFactory.create_batch(6, owner=alice)
    AssociationFactory.create_batch(len(neighbours), source=factory.Iterator(neighbours), target=centre)

    boost_phase()

    assert fresh(centre).quality_boost_connection_count == 5


def test_archived_neighbours_do_not_count(alice, boost_settings):
    centre, *neighbours = MemoryFactory.create_batch(6, owner=alice)
    AssociationFactory.create_batch(len(neighbours), source=centre, target=factory.Iterator(neighbours))
    Memory.objects.filter(pk=neighbours[0].pk).update(archived_at=timezone.now())

    boost_phase()

    assert fresh(centre).quality_boost_applied is False


def test_enrichment_edges_do_not_count(alice, boost_settings):
    centre, *neighbours = MemoryFactory.create_batch(6, owner=alice)
    AssociationFactory.create_batch(4, source=centre, target=factory.Iterator(neighbours[:4]))
    AssociationFactory(source=centre, target=neighbours[4], relation_type="SIMILAR_TO", origin="enrichment")
    AssociationFactory(source=neighbours[4], target=centre, relation_type="PRECEDED_BY", origin="enrichment")

    boost_phase()

    assert fresh(centre).quality_boost_applied is False


def test_enrichment_edges_count_when_the_setting_says_so(alice, boost_settings):
    boost_settings.BOOST_COUNT_ENRICHMENT_EDGES = True
    centre, *neighbours = MemoryFactory.create_batch(6, owner=alice)
    AssociationFactory.create_batch(4, source=centre, target=factory.Iterator(neighbours[:4]))
    AssociationFactory(source=centre, target=neighbours[4], relation_type="SIMILAR_TO", origin="enrichment")

    boost_phase()

    assert fresh(centre).quality_boost_connection_count == 5


def test_consolidation_discovered_edges_count(alice, boost_settings):
    centre, *neighbours = MemoryFactory.create_batch(6, owner=alice)
    AssociationFactory.create_batch(4, source=centre, target=factory.Iterator(neighbours[:4]))
    AssociationFactory(
        source=centre, target=neighbours[4], relation_type="DISCOVERED", origin="consolidation"
    )

    boost_phase()

    assert fresh(centre).quality_boost_connection_count == 5
