import pytest

from graph import age
from memories import services


def remember(user, content, tags=(), importance=0.5, created_at=None):
    """Store one memory through the real store service (real embedding, vertex, quality)."""
    item = {
        "content": content,
        "tags": list(tags),
        "memory_type": "Memory",
        "importance": importance,
        "metadata": {},
        "source_type": "user_input",
        "source_id": "",
        "is_explicit": False,
        "created_at": created_at,
    }
    memory, _ = services.store_memory(user, item)
    return memory


@pytest.fixture
def graph_agrees():
    """Call to assert that the association table and the AGE graph hold exactly the same things."""

    def check():
        assert age.differences() == []

    return check


@pytest.fixture
def pair(alice):
    first = remember(alice, "We chose PostgreSQL for the event store because of ACID guarantees.")
    second = remember(alice, "MongoDB was evaluated for the event store and rejected.")
    return first, second
