"""All Cypher for the AGE graph `memsite`. Every query is parameterized.

AGE accepts Cypher parameters only as a real bound parameter (`cypher(graph, query, $1)`), while
Django's psycopg cursors bind on the client. Queries therefore run on a server-binding psycopg
cursor over Django's own connection, so they join the surrounding Django transaction.
"""

import json

import psycopg
from age.builder import parseAgeValue
from django.db import connection

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
