import pytest

from graph import age
from tests.factories import MemoryFactory


@pytest.fixture
def graph_agrees():
    """Call to assert that the association table and the AGE graph hold exactly the same things."""

    def check():
        assert age.differences() == []

    return check


@pytest.fixture
def pair(alice):
    first = MemoryFactory(
        owner=alice, content="We chose PostgreSQL for the event store because of ACID guarantees."
    )
    second = MemoryFactory(owner=alice, content="MongoDB was evaluated for the event store and rejected.")
    return first, second
