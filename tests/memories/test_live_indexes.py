"""Searches of live memories read the partial indexes over live memories (migration 0010), so an
owner's archive never costs a recall a heap row; recall with `include_archived` ranks without them."""

import pytest
from django.db import connection

from memories.models import Memory
from tests.factories import MemoryFactory
from tests.memories.conftest import GATHERING, plan_nodes, recall_plan

pytestmark = pytest.mark.django_db


def indexes(plan, gathering_only):
    """The indexes the plan reads; with `gathering_only`, those of the CTEs that search for
    candidates (the rows fetched by id afterwards, the matches' conversation neighbours among them,
    may be archived, read through any index)."""
    return {
        node["Index Name"]
        for node, cte in plan_nodes(plan)
        if "Index Name" in node and (cte in GATHERING or not gathering_only)
    }


# An archive far larger than the live memories, as a long-lived owner's is. With an archive of a
# few dozen memories the planner costs both text indexes the same (12.99 each for one term), and
# which one a plan reads then depends on what the rest of the suite left in the table; with a
# thousand the index over every memory costs clearly more (21.5).
ARCHIVED = 1_000


@pytest.fixture
def memories(alice):
    live = [
        MemoryFactory(owner=alice, content=f"Deploy note {n} about the billing service", tags=["billing"])
        for n in range(20)
    ]
    Memory.objects.bulk_create(
        Memory(
            owner=alice,
            content=f"Old deploy note {n} about the billing service",
            content_hash=f"archived-{n}",
            embedding=live[0].embedding,
            tags=["billing"],
            archived_at="2026-01-01T00:00:00Z",
        )
        for n in range(ARCHIVED)
    )
    # A GIN search reads its index's whole pending list, and the planner counts its pages: emptied,
    # as autovacuum does, the lists leave the choice to the indexes' sizes.
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT gin_clean_pending_list(i.indexrelid)
              FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
             WHERE i.indrelid = 'memories_memory'::regclass AND am.amname = 'gin'
            """
        )
        cursor.execute("ANALYZE memories_memory")


@pytest.mark.parametrize(
    "filters",
    [{}, {"tags": "billing"}, {"type": "Memory"}],
    ids=["plain", "tag-filtered", "type-filtered"],
)
def test_a_live_recall_gathers_its_candidates_from_live_indexes(memories, alice_client, filters):
    params = {"query": "billing deploy", **filters}
    terms = {  # the others read the table's statistics in the catalog
        name
        for name in indexes(recall_plan(alice_client, "terms", **params), gathering_only=False)
        if not name.startswith("pg_")
    }
    gathering = indexes(recall_plan(alice_client, **params), gathering_only=True)
    assert terms
    assert gathering
    assert all(name.startswith("memory_live_") for name in terms | gathering), terms | gathering


def test_a_recall_including_archived_memories_does_not_use_the_live_indexes(memories, alice_client):
    used = set()
    for part in ("terms", "scoring"):
        plan = recall_plan(alice_client, part, query="billing deploy", include_archived="true")
        used |= indexes(plan, gathering_only=False)
    assert not any(name.startswith("memory_live_") for name in used), used
