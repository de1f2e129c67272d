"""GET /memory: a page of one's own memories, filtered and ordered; bad parameters are a 400."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memories.services import archive_memory
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


def ids(response):
    assert response.status_code == 200, response.json()
    return [memory["id"] for memory in response.json()["memories"]]


@pytest.fixture
def shelf(alice, bob):
    old = MemoryFactory(
        owner=alice, content="Old decision", memory_type="Decision", days_old=30, importance=0.9
    )
    new = MemoryFactory(owner=alice, content="New habit", memory_type="Habit", tags=["daily"], importance=0.2)
    gone = MemoryFactory(owner=alice, content="Archived note", tags=["daily"])
    archive_memory(gone)
    MemoryFactory(owner=bob, content="Bob's note", tags=["daily"])
    return old, new, gone


def test_the_list_pages_ones_live_memories_newest_first(alice_client, shelf, django_assert_max_num_queries):
    old, new, _ = shelf
    with django_assert_max_num_queries(6):
        response = alice_client.get("/memory", {"limit": 1})
    assert ids(response) == [str(new.pk)]
    assert (response.json()["total"], response.json()["limit"]) == (2, 1)
    assert ids(alice_client.get("/memory", {"limit": 1, "offset": 1})) == [str(old.pk)]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"tags": "daily"}, ["new"]),
        ({"type": "decision"}, ["old"]),
        ({"archived": "archived"}, ["gone"]),
        ({"archived": "all", "order": "time_asc"}, ["old", "new", "gone"]),
        ({"order": "importance"}, ["old", "new"]),
    ],
)
def test_the_list_filters_and_orders(alice_client, shelf, params, expected):
    named = dict(zip(["old", "new", "gone"], [str(memory.pk) for memory in shelf], strict=True))
    assert ids(alice_client.get("/memory", params)) == [named[name] for name in expected]


def test_the_list_filters_by_created_range(alice_client, shelf):
    old, _, _ = shelf
    end = (timezone.now() - timedelta(days=10)).isoformat()
    assert ids(alice_client.get("/memory", {"end": end})) == [str(old.pk)]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"limit": "501"}, "'limit' must be an integer between 1 and 500"),
        ({"offset": "-1"}, "'offset' must be an integer between 0 and 1000000"),
        ({"order": "random"}, "'order' must be one of: time_desc, time_asc, importance"),
        ({"archived": "maybe"}, "'archived' must be one of: live, archived, all"),
        ({"colour": "red"}, "Unknown field: 'colour'"),
    ],
)
def test_bad_list_parameters_are_a_400(alice_client, shelf, params, message):
    response = alice_client.get("/memory", params)
    assert response.status_code == 400
    assert response.json()["message"] == message
