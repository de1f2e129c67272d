"""Recall's context follows the PRECEDED_BY edges of its candidates by index lookups: joined
instead, the planner may hash every PRECEDED_BY edge of the table for each recall (18–23 ms per
join at 100,000 memories in a chain, three joins per recall)."""

import pytest
from django.db import connection

from graph.models import Association
from tests.factories import MemoryFactory
from tests.memories.conftest import plan_nodes, recall_plan

pytestmark = pytest.mark.django_db


def test_recall_looks_up_the_conversation_edges_of_each_candidate_by_index(alice, alice_client):
    turns = [MemoryFactory(owner=alice, content=f"Turn {n} about the billing service") for n in range(200)]
    Association.objects.bulk_create(
        Association(source=later, target=earlier, relation_type="PRECEDED_BY")
        for earlier, later in zip(turns, turns[1:], strict=False)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE memories_memory")
        cursor.execute("ANALYZE graph_association")
    plan = recall_plan(alice_client, query="billing")
    edges = [node for node in plan_nodes(plan) if node.get("Relation Name") == "graph_association"]
    assert edges
    assert all(node["Node Type"].startswith("Index") and node.get("Index Cond") for node in edges), edges
