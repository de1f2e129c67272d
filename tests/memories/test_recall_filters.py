from datetime import UTC, datetime

import pytest

from memories.models import Memory
from tests.factories import MemoryFactory
from tests.memories.conftest import recall

pytestmark = pytest.mark.django_db


@pytest.fixture
def tagged(alice):
    return {
        key: str(MemoryFactory(owner=alice, content=content, tags=tags, memory_type=kind).pk)
        for key, content, tags, kind in [
            ("py", "Use type hints in new Python code", ["lang:python", "style"], "Memory"),
            ("go", "Go services log in JSON", ["lang:go", "style"], "Pattern"),
            ("db", "Nightly database backups run at 2am", ["ops"], "Decision"),
        ]
    }


def ids(client, **params):
    return {r["id"] for r in recall(client, limit=10, **params)["results"]}


def test_tags_any_and_all(alice_client, tagged):
    assert ids(alice_client, query="code", tags="style,ops") == set(tagged.values())
    assert ids(alice_client, query="code", tags="style,lang:go", tag_mode="all") == {tagged["go"]}
    assert ids(alice_client, query="code", tags=["STYLE", "lang:python"], tag_mode="all") == {tagged["py"]}


def test_tag_prefix_match(alice_client, tagged):
    assert ids(alice_client, tags="lang:", tag_match="prefix") == {tagged["py"], tagged["go"]}
    assert ids(alice_client, tags="lang:", tag_match="exact") == set()


def test_exclude_tags(alice_client, tagged):
    assert ids(alice_client, query="code", exclude_tags="style") == {tagged["db"]}
    assert ids(alice_client, exclude_tags="lang:", tag_match="prefix") == {tagged["db"]}


def test_tag_component_is_the_fraction_of_query_tags_matched(alice_client, tagged):
    results = recall(alice_client, query="code", tags="style,lang:go", limit=10)["results"]
    scores = {r["id"]: r["score_components"]["tag"] for r in results}
    assert scores == {tagged["py"]: 0.5, tagged["go"]: 1.0}


def test_type_filter_is_case_insensitive(alice_client, tagged):
    assert ids(alice_client, type="decision") == {tagged["db"]}
    assert ids(alice_client, query="code", type="pattern,DECISION") == {tagged["go"], tagged["db"]}


def test_time_window(alice, alice_client):
    MemoryFactory(owner=alice, content="trip to Rome", created_at=datetime(2023, 5, 1, 10, tzinfo=UTC))
    june = str(
        MemoryFactory(
            owner=alice, content="trip to Oslo", created_at=datetime(2023, 6, 15, 10, tzinfo=UTC)
        ).pk
    )
    MemoryFactory(owner=alice, content="trip to Lima", created_at=datetime(2023, 8, 1, 10, tzinfo=UTC))
    assert ids(alice_client, query="trip", start="2023-06-01", end="2023-07-01T00:00:00Z") == {june}


def test_min_quality_is_inclusive(alice_client, tagged):
    Memory.objects.filter(pk=tagged["py"]).update(quality_score=0.6)
    Memory.objects.exclude(pk=tagged["py"]).update(quality_score=0.59)
    assert ids(alice_client, query="code", min_quality="0.6") == {tagged["py"]}
    assert ids(alice_client, query="code", min_quality="0.61") == set()


def test_rank_by_quality_puts_quality_first(alice, alice_client):
    relevant = str(MemoryFactory(owner=alice, content="The printer on floor two is out of toner").pk)
    polished = str(MemoryFactory(owner=alice, content="Office supplies are ordered every Monday").pk)
    Memory.objects.filter(pk=relevant).update(quality_score=0.0, quality_relevance=0.0)
    Memory.objects.filter(pk=polished).update(quality_score=1.0, quality_relevance=0.0)
    plain = recall(alice_client, query="printer toner")["results"]
    ranked = recall(alice_client, query="printer toner", rank_by_quality="true")["results"]
    assert [r["id"] for r in plain] == [relevant, polished]
    assert [r["id"] for r in ranked] == [polished, relevant]
