"""All Cypher for the AGE graph `memsite`. Every query is parameterized.

AGE accepts Cypher parameters only as a real bound parameter (`cypher(graph, query, $1)`), while
Django's psycopg cursors bind on the client. Queries therefore run on a server-binding psycopg
cursor over Django's own connection, so they join the surrounding Django transaction.
"""

import json
from contextlib import contextmanager

import psycopg
from age.builder import parseAgeValue
from django.db import connection

from graph.models import RELATION_PROPERTIES

GRAPH = "memsite"


def cypher(query, params=None, columns=("result",)):
    """Run a Cypher query and return its rows, each value parsed from agtype."""
    column_list = ", ".join(f"{name} ag_catalog.agtype" for name in columns)
    sql = f"SELECT * FROM ag_catalog.cypher('{GRAPH}', $$ {query} $$, %s) AS ({column_list})"
    connection.ensure_connection()
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(sql, [json.dumps(params or {})])
        rows = cursor.fetchall() if cursor.description else []
    return [tuple(parseAgeValue(value) if value is not None else None for value in row) for row in rows]


def add_memory_vertices(memories):
    """Create the `:Memory {id, owner}` vertex of each memory (inside the caller's transaction)."""
    rows = [{"id": str(memory.id), "owner": memory.owner_id} for memory in memories]
    if rows:
        cypher("UNWIND $rows AS row CREATE (:Memory {id: row.id, owner: row.owner})", {"rows": rows})


def remove_memory_vertices(memory_ids):
    """Delete the vertices of these memories together with all their edges."""
    ids = [str(memory_id) for memory_id in memory_ids]
    if ids:
        cypher("UNWIND $ids AS mid MATCH (m:Memory {id: mid}) DETACH DELETE m", {"ids": ids})


@contextmanager
def nested_loop_plan():
    """Plan the queries inside on nested loops over indexes, for traversals from a few vertices.

    AGE estimates 1,000 rows for any `UNWIND $list`, so PostgreSQL would hash-join whole label
    tables; with hash and merge joins off, each seed costs a few index probes. The settings are
    session-level and restored afterwards (a rolled-back transaction undoes them by itself).
    """
    connection.ensure_connection()
    raw = connection.connection
    with raw.cursor() as cursor:
        cursor.execute("SET enable_hashjoin = off; SET enable_mergejoin = off")
    try:
        yield
    finally:
        if raw.info.transaction_status != psycopg.pq.TransactionStatus.INERROR:
            with raw.cursor() as cursor:
                cursor.execute("RESET enable_hashjoin; RESET enable_mergejoin")


def _edge_set_clause(relation_type):
    names = ["strength", "updated_at", *RELATION_PROPERTIES[relation_type]]
    return ", ".join(f"e.{name} = row.{name}" for name in names)


def merge_edges(relation_type, rows):
    """MERGE one `relation_type` edge per row {source, target, strength, updated_at, <properties>}.

    One UNWIND for all rows. The label comes from the fixed relation table, never from input; the
    whitelisted properties missing from a row are removed from the edge, as in the table row.
    """
    if relation_type not in RELATION_PROPERTIES:
        raise ValueError(f"unknown relation type {relation_type!r}")
    if not rows:
        return
    with nested_loop_plan():
        cypher(
            "UNWIND $rows AS row "
            "MATCH (a:Memory) WHERE a.id = row.source "
            "MATCH (b:Memory) WHERE b.id = row.target "
            f"MERGE (a)-[e:{relation_type}]->(b) SET {_edge_set_clause(relation_type)}",
            {"rows": rows},
        )


def remove_edges(relation_type, pairs):
    """Delete the `relation_type` edges between these (source, target) id pairs."""
    if relation_type not in RELATION_PROPERTIES:
        raise ValueError(f"unknown relation type {relation_type!r}")
    rows = [{"source": str(source), "target": str(target)} for source, target in pairs]
    if not rows:
        return
    with nested_loop_plan():
        cypher(
            "UNWIND $rows AS row "
            f"MATCH (a:Memory)-[e:{relation_type}]->(b:Memory) "
            "WHERE a.id = row.source AND b.id = row.target DELETE e",
            {"rows": rows},
        )


def step(seed_ids, direction, min_strength=0.0):
    """One directed hop from the seeds: rows (seed id, neighbour id, relation type, strength).

    `direction` is "out" (seed -> neighbour) or "in" (neighbour -> seed); the pattern is always
    directed and spans every edge label, and all seeds go in one UNWIND. Edges only ever join two
    memories of the same owner, so seeds of one owner reach only that owner's memories (a filter
    on the neighbour's owner would make PostgreSQL start from the whole label instead).
    """
    ids = [str(seed_id) for seed_id in seed_ids]
    if not ids:
        return []
    pattern = "(a:Memory)-[e]->(b:Memory)" if direction == "out" else "(a:Memory)<-[e]-(b:Memory)"
    with nested_loop_plan():
        return cypher(
            f"UNWIND $ids AS sid MATCH {pattern} "
            "WHERE a.id = sid AND e.strength >= $min_strength "
            "RETURN a.id, b.id, label(e), e.strength",
            {"ids": ids, "min_strength": float(min_strength)},
            columns=("seed", "neighbour", "relation_type", "strength"),
        )
