from functools import partial

import pytest
from django.db import connection, transaction

from tests.conftest import at_once
from tests.factories import MemoryFactory


def index_definitions():
    """{name: CREATE INDEX statement} of the memories table's indexes."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'memories_memory'")
        return dict(cursor.fetchall())


def vector_indexes():
    return sorted(name for name, definition in index_definitions().items() if " USING hnsw " in definition)


def recall(client, **params):
    response = client.get("/recall", params)
    assert response.status_code == 200, response.json()
    return response.json()


STATEMENTS = {"settings": "set_config('hnsw.ef_search'", "terms": "lexemes AS", "scoring": "candidates AS"}


def recall_statements(client, parts, **params):
    """(SQL, parameters) of each of these statements one GET /recall runs: its search `settings`,
    the query's `terms` or the `scoring`."""
    statements = []

    def keep(execute, sql, sql_params, many, context):
        statements.append((sql, sql_params))
        return execute(sql, sql_params, many, context)

    with connection.execute_wrapper(keep):
        recall(client, **params)
    return [next(s for s in statements if STATEMENTS[part] in s[0]) for part in parts]


def recall_statement(client, part="scoring", **params):
    """(SQL, parameters) of a statement one GET /recall runs: the query's `terms` or the `scoring`."""
    return recall_statements(client, [part], **params)[0]


def recall_plan(client, part="scoring", **params):
    """EXPLAIN (JSON) of a statement one GET /recall runs (the query's `terms` or the `scoring`),
    sequential scans ruled out."""
    sql, sql_params = recall_statement(client, part, **params)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN (FORMAT JSON) " + sql, sql_params)
        return cursor.fetchone()[0][0]["Plan"]


# The CTEs of the scoring statement that gather the matches (the rest reads memories by id).
GATHERING = {"vector_hits", "every_term_hits", "matched"}


def plan_nodes(node, cte=None):
    """(node, name of the CTE it belongs to or None) for every node of a plan from `recall_plan`."""
    name = node.get("Subplan Name", "")
    cte = name.removeprefix("CTE ") if name.startswith("CTE ") else cte
    yield node, cte
    for child in node.get("Plans", []):
        yield from plan_nodes(child, cte)


def recalled_contents(client, **params):
    return [result["memory"]["content"] for result in recall(client, **params)["results"]]


@pytest.fixture
def alice_memory(alice):
    return str(
        MemoryFactory(owner=alice, content="Alice keeps her bicycle in the garden shed", tags=["home"]).pk
    )


def race(clients, operations):
    """Send each (method, path, body) of `operations` with its client at once; answers the statuses."""
    calls = [
        partial(getattr(client, method), path, body, format="json")
        for client, (method, path, body) in zip(clients, operations, strict=True)
    ]
    return [response.status_code for response in at_once(calls)]
