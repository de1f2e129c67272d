"""Searches of live memories read the partial indexes over live memories (migration 0010), so an
owner's archive never costs a recall a heap row; recall with `include_archived` ranks without them."""

import pytest
from django.db import connection, transaction

from memories.models import Memory
from tests.factories import MemoryFactory
from tests.memories.conftest import recall

pytestmark = pytest.mark.django_db


def recall_plan(client, **params):
    """EXPLAIN of the recall statement one GET /recall runs, sequential scans ruled out."""
    statements = []

    def keep(execute, sql, sql_params, many, context):
        statements.append((sql, sql_params))
        return execute(sql, sql_params, many, context)

    with connection.execute_wrapper(keep):
        recall(client, **params)
    sql, sql_params = next(s for s in statements if "candidates AS" in s[0])
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN " + sql, sql_params)
        return "\n".join(row[0] for row in cursor.fetchall())


@pytest.fixture
def memories(alice):
    for n in range(20):
        MemoryFactory(owner=alice, content=f"Deploy note {n} about the billing service", tags=["billing"])
    Memory.objects.filter(content__endswith="billing service", content__contains=" 1").update(
        archived_at="2026-01-01T00:00:00Z"
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE memories_memory")


@pytest.mark.parametrize(
    "filters",
    [{}, {"tags": "billing"}, {"type": "Memory"}],
    ids=["plain", "tag-filtered", "type-filtered"],
)
def test_a_live_recall_gathers_its_candidates_from_live_indexes(memories, alice_client, filters):
    plan = recall_plan(alice_client, query="billing deploy", **filters)
    assert "memory_live_embedding_hnsw" in plan or "memory_live_owner" in plan, plan
    assert "memory_owner_search_gin" not in plan, plan
    assert "memory_owner_tags_gin" not in plan, plan


def test_a_recall_including_archived_memories_does_not_use_the_live_indexes(memories, alice_client):
    plan = recall_plan(alice_client, query="billing deploy", include_archived="true")
    assert "memory_live_" not in plan, plan
