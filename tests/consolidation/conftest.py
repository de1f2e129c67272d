import factory
import pytest

from memories.models import Memory
from tests.factories import AssociationFactory, MemoryFactory


def hub(owner, connections, quality=0.5, neighbour_quality=0.5, **fields):
    """A memory with `connections` distinct neighbours, each linked to it by a user association."""
    centre = MemoryFactory(owner=owner, quality=quality, **fields)
    neighbours = MemoryFactory.create_batch(connections, owner=owner, quality=neighbour_quality)
    AssociationFactory.create_batch(connections, source=centre, target=factory.Iterator(neighbours))
    return centre


def fresh(memory):
    return Memory.objects.get(pk=memory.pk)


@pytest.fixture
def boost_settings(settings):
    """The seed's defaults, with the future phases and discovery off unless a test turns one on."""
    settings.BOOST_ENABLED = True
    settings.BOOST_MIN_CONNECTIONS = 5
    settings.BOOST_FACTOR = 1.2
    settings.BOOST_MIN_CONNECTED_QUALITY = None
    settings.BOOST_DECAY_ENABLED = False
    settings.BOOST_BIDIRECTIONAL_ENABLED = False
    settings.BOOST_COUNT_ENRICHMENT_EDGES = False
    settings.DISCOVERY_ENABLED = False
    return settings
