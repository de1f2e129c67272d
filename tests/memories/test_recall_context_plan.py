"""Recall's context follows the PRECEDED_BY edges of its candidates by index lookups: joined
instead, the planner may hash every PRECEDED_BY edge of the table for each recall (18–23 ms per
join at 100,000 memories in a chain, three joins per recall)."""

import pytest
from django.db import connection

from graph.models import Association
from tests.factories import MemoryFactory
from tests.memories.test_live_indexes import recall_plan

pytestmark = pytest.mark.django_db


def scans(node, table):
    found = [node] if node.get("Relation Name") == table else []
    for child in node.get("Plans", []):
        found += scans(child, table)
    return found


def test_recall_looks_up_the_conversation_edges_of_each_candidate_by_index(alice, alice_client):
    turns = [MemoryFactory(owner=alice, content=f"Turn {n} about the billing service") for n in range(200)]
    Association.objects.bulk_create(
        Association(source=later, target=earlier, relation_type="PRECEDED_BY")
        for earlier, later in zip(turns, turns[1:], strict=False)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE memories_memory")
        cursor.execute("ANALYZE graph_association")
    edges = scans(recall_plan(alice_client, query="billing"), "graph_association")
    assert edges
    assert all(node["Node Type"].startswith("Index") and node.get("Index Cond") for node in edges), edges
