"""A filter whose memories lie far from the query, beyond the entries the HNSW search may visit
(`RECALL_HNSW_MAX_SCAN_TUPLES`), still gets its nearest memories: the filtered memories are ranked
exactly when the index search finds fewer than the recall's limit."""

import factory
import pytest
from django.db import connection, transaction

from tests.conftest import client_for
from tests.factories import MemoryFactory
from tests.memories.conftest import plan_nodes, race, recall, recall_statements

pytestmark = pytest.mark.django_db

NEAR = "Deploy {n}: the billing service release failed its health check"
FAR = [
    "Grandma's lemon cake needs {n} eggs and a cup of sugar",
    "The cat sleeps on the {n}th step of the stairs",
]


@pytest.fixture
def crowded(alice, settings):
    """Three hundred memories near the query, six far from it with another tag and type; the
    search may visit the hundred memories nearest the query, all of the near kind, for twenty
    candidates."""
    settings.RECALL_CANDIDATES = 20
    settings.RECALL_HNSW_EF_SEARCH = 10
    settings.RECALL_HNSW_MAX_SCAN_TUPLES = 100
    MemoryFactory.create_batch(300, owner=alice, content=factory.Sequence(lambda n: NEAR.format(n=n)))
    far = MemoryFactory.create_batch(
        6,
        owner=alice,
        memory_type="Insight",
        tags=["home"],
        content=factory.Sequence(lambda n: FAR[n % 2].format(n=n)),
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE memories_memory")
        # Ordered by distance only through an index: the planner takes the HNSW search, whatever
        # the statistics say of the owner's and the type's sizes.
        cursor.execute("SET enable_sort = off")
    return {str(memory.pk) for memory in far}


def exact_scan_loops(client, **params):
    """How many times the scoring statement of this recall read the memories for its exact search
    (EXPLAIN ANALYZE, under the search settings the recall set)."""
    search_settings, (sql, sql_params) = recall_statements(client, ["settings", "scoring"], **params)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(*search_settings)
        cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, sql_params)
        plan = cursor.fetchone()[0][0]["Plan"]
    (exact_sort,) = [node for node, _ in plan_nodes(plan) if "cosine_distance" in str(node.get("Sort Key"))]
    return sum(
        node["Actual Loops"]
        for node, _ in plan_nodes(exact_sort)
        if node.get("Relation Name") == "memories_memory"
    )


def test_a_tag_whose_memories_are_far_from_the_query_still_recalls_its_nearest(alice_client, crowded):
    body = recall(alice_client, query="why did the billing deploy fail", tags="home", limit=5)
    assert body["count"] == 5
    assert {result["id"] for result in body["results"]} <= crowded


def test_only_a_search_that_found_fewer_than_the_limit_ranks_exactly(alice_client, crowded):
    query = "why did the billing deploy fail"
    assert exact_scan_loops(alice_client, query=query, tags="home", limit=5) == 1
    assert exact_scan_loops(alice_client, query=query, limit=5) == 0
    # All twenty candidates found, though fewer than the fifty results asked for.
    assert exact_scan_loops(alice_client, query=query, limit=50) == 0


def test_a_type_whose_memories_are_far_from_the_query_still_recalls_its_nearest(alice_client, crowded):
    params = {"query": "why did the billing deploy fail", "type": "Insight", "limit": 5}
    body = recall(alice_client, **params)
    assert body["count"] == 5
    assert {result["id"] for result in body["results"]} <= crowded
    assert exact_scan_loops(alice_client, **params) == 1


@pytest.mark.django_db(transaction=True)
def test_type_filtered_recalls_ranking_exactly_race_the_deletion_and_archiving_of_the_types_memories(
    alice, alice_client
):
    """Every recall answers (through the exact branch: the type has fewer memories than the limit),
    and afterwards only the type's live memories come back."""
    MemoryFactory.create_batch(10, owner=alice, content=factory.Sequence(lambda n: NEAR.format(n=n)))
    far = MemoryFactory.create_batch(
        3, owner=alice, memory_type="Insight", content=factory.Sequence(lambda n: FAR[0].format(n=n))
    )
    gone, archived, kept = (str(memory.pk) for memory in far)
    params = {"query": "why did the billing deploy fail", "type": "Insight", "limit": 5}
    assert exact_scan_loops(alice_client, **params) == 1
    operations = [
        ("delete", f"/memory/{gone}", None),
        ("post", f"/memory/{archived}/archive", None),
        *[("get", "/recall", params)] * 3,
    ]
    statuses = race([client_for(alice) for _ in operations], operations)
    assert statuses == [200] * 5
    assert [result["id"] for result in recall(alice_client, **params)["results"]] == [kept]


def test_the_scoring_statement_runs_without_jit_or_parallel_workers(alice_client, crowded):
    """The exact branch's estimated cost, on a large owner, would otherwise buy every recall a JIT
    compilation and parallel workers, both started before the branch's condition is read."""
    seen = []

    def settings_after(execute, sql, sql_params, many, context):
        result = execute(sql, sql_params, many, context)
        if "candidates AS" in sql:
            with context["connection"].cursor() as cursor:
                cursor.execute(
                    "SELECT current_setting('jit'), current_setting('max_parallel_workers_per_gather')"
                )
                seen.append(cursor.fetchone())
        return result

    with connection.execute_wrapper(settings_after):
        recall(alice_client, query="why did the billing deploy fail", tags="home", limit=5)
    assert seen == [("off", "0")]
