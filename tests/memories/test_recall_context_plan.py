"""Recall's context follows the PRECEDED_BY edges of its candidates by index lookups: joined
instead, the planner may hash every PRECEDED_BY edge of the table for each recall (18–23 ms per
join at 100,000 memories in a chain, three joins per recall), and reads each memory of that part
of the conversation once (read three times, recall took 39–48 ms p50 over HTTP at 100,000 memories
in a chain against 36–46 ms read once)."""

import pytest
from django.db import connection

from graph.models import Association
from tests.factories import MemoryFactory
from tests.memories.conftest import GATHERING, plan_nodes, recall_plan

pytestmark = pytest.mark.django_db


@pytest.fixture
def conversation(alice):
    """200 turns of alice's, each PRECEDED_BY the one before, and the statistics analyzed."""
    turns = [MemoryFactory(owner=alice, content=f"Turn {n} about the billing service") for n in range(200)]
    Association.objects.bulk_create(
        Association(source=later, target=earlier, relation_type="PRECEDED_BY")
        for earlier, later in zip(turns, turns[1:], strict=False)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE memories_memory")
        cursor.execute("ANALYZE graph_association")


def test_recall_looks_up_the_conversation_edges_of_each_candidate_by_index(conversation, alice_client):
    plan = recall_plan(alice_client, query="billing")
    edges = [node for node, _ in plan_nodes(plan) if node.get("Relation Name") == "graph_association"]
    assert edges
    assert all(node["Node Type"].startswith("Index") and node.get("Index Cond") for node in edges), edges


def test_recall_reads_the_rows_of_the_conversation_around_its_matches_once(conversation, alice_client):
    plan = recall_plan(alice_client, query="billing")
    reads = [
        node
        for node, cte in plan_nodes(plan)
        if node.get("Relation Name") == "memories_memory" and cte not in GATHERING
    ]
    # the scored memories (the matches and the conversation around them), the best twenty again for
    # `overtaken` (their embeddings, by primary key), then the returned ones
    assert len(reads) == 3, reads
