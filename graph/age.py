"""Everything that touches the AGE graph `memsite`. Every query is parameterized.

Traversals and reads are Cypher. Edge writes and deletes (and vertex deletes) are set-based SQL
on AGE's label tables inside the same transaction: AGE 1.5 finds each entity it creates, sets or
deletes with a sequential heap scan of its label table, which costs milliseconds per edge once
the graph holds 100,000 vertices (bench/README.md has the numbers).

AGE accepts Cypher parameters only as a real bound parameter (`cypher(graph, query, $1)`), while
Django's psycopg cursors bind on the client. Queries therefore run on a server-binding psycopg
cursor over Django's own connection, so they join the surrounding Django transaction. Cypher
runs on the connection `memsite.replicas` gives the current request: a replica's for a read-only
request (AGE reads on a hot standby), else the primary's.
"""

import json
from contextlib import contextmanager

import psycopg
from age.builder import parseAgeValue
from django.db import connection

from graph.models import RELATION_PROPERTIES
from memsite import replicas

GRAPH = "memsite"
VERTEX_ID = "ag_catalog.agtype_access_operator(VARIADIC ARRAY[properties, '\"id\"'::ag_catalog.agtype])"
EDGE_STRENGTH = (
    "ag_catalog.agtype_access_operator(VARIADIC ARRAY[e.properties, '\"strength\"'::ag_catalog.agtype])"
)
VERTEX_OWNER = "ag_catalog.agtype_access_operator(VARIADIC ARRAY[properties, '\"owner\"'::ag_catalog.agtype])"


def cypher(query, params=None, columns=("result",)):
    """Run a Cypher query and return its rows, each value parsed from agtype.

    A column given as (name, sql_type), e.g. ("id", "text") or ("strength", "float8"), is cast
    by AGE itself in SQL instead: scalar results in hot paths skip the driver's (ANTLR) parser,
    which costs about 0.2 ms a value.
    """
    specs = [column if isinstance(column, tuple) else (column, None) for column in columns]
    column_list = ", ".join(f"{name} ag_catalog.agtype" for name, _ in specs)
    select = ", ".join(f"{name}::{sql_type}" if sql_type else name for name, sql_type in specs)
    sql = f"SELECT {select} FROM ag_catalog.cypher('{GRAPH}', $$ {query} $$, %s) AS ({column_list})"
    database = replicas.read_connection()
    database.ensure_connection()
    with psycopg.Cursor(database.connection) as cursor:
        cursor.execute(sql, [json.dumps(params or {})])
        rows = cursor.fetchall() if cursor.description else []
    parse = [sql_type is None for _, sql_type in specs]
    return [
        tuple(
            parseAgeValue(value) if value is not None and parsed else value
            for value, parsed in zip(row, parse, strict=True)
        )
        for row in rows
    ]


def add_memory_vertices(memories):
    """Create the `:Memory {id, owner}` vertex of each memory (inside the caller's transaction)."""
    rows = [{"id": str(memory.id), "owner": memory.owner_id} for memory in memories]
    if rows:
        cypher("UNWIND $rows AS row CREATE (:Memory {id: row.id, owner: row.owner})", {"rows": rows})


def remove_memory_vertices(memory_ids):
    """Delete the vertices of these memories together with all their edges.

    Plain SQL on the label tables: AGE's DETACH DELETE scans every edge table once per vertex,
    while these deletes use the start_id/end_id indexes.
    """
    ids = [json.dumps(str(memory_id)) for memory_id in memory_ids]
    if not ids:
        return
    edge_deletes = ",\n".join(
        f'e{number} AS (DELETE FROM {GRAPH}."{label}" WHERE start_id = ANY(ARRAY(SELECT id FROM v)) '
        f"OR end_id = ANY(ARRAY(SELECT id FROM v)))"
        for number, label in enumerate(RELATION_PROPERTIES)
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f'WITH v AS MATERIALIZED (SELECT id FROM {GRAPH}."Memory" '
            f"WHERE {VERTEX_ID} = ANY(%s::text[]::ag_catalog.agtype[])),\n"
            f"{edge_deletes}\n"
            f'DELETE FROM {GRAPH}."Memory" WHERE id IN (SELECT id FROM v)',
            [ids],
        )


def graph_available():
    """Whether AGE is installed and the graph exists (a cheap catalog lookup)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass('ag_catalog.ag_graph') IS NOT NULL")
        if not cursor.fetchone()[0]:
            return False
        cursor.execute("SELECT 1 FROM ag_catalog.ag_graph WHERE name = %s", [GRAPH])
        return cursor.fetchone() is not None


@contextmanager
def nested_loop_plan():
    """Plan the queries inside on nested loops over indexes, for traversals from a few vertices.

    AGE estimates 1,000 rows for any `UNWIND $list`, so PostgreSQL would hash-join whole label
    tables (or start parallel workers); with hash and merge joins and parallel plans off, each seed
    costs a few index probes. The settings are session-level and restored afterwards (a
    rolled-back transaction undoes them by itself).
    """
    database = replicas.read_connection()
    database.ensure_connection()
    raw = database.connection
    with raw.cursor() as cursor:
        cursor.execute(
            "SET enable_hashjoin = off; SET enable_mergejoin = off; SET max_parallel_workers_per_gather = 0"
        )
    try:
        yield
    finally:
        if raw.info.transaction_status != psycopg.pq.TransactionStatus.INERROR:
            with raw.cursor() as cursor:
                cursor.execute(
                    "RESET enable_hashjoin; RESET enable_mergejoin; RESET max_parallel_workers_per_gather"
                )


def _edge_properties(relation_type):
    return ["strength", "updated_at", *RELATION_PROPERTIES[relation_type]]


def _vertex_id(alias):
    return (
        f"ag_catalog.agtype_access_operator(VARIADIC ARRAY[{alias}.properties, '\"id\"'::ag_catalog.agtype])"
    )


def _edge_rows_sql():
    """The rows parameter joined to both end vertices (by the btree on the vertex id)."""
    return (
        "SELECT va.id AS start_id, vb.id AS end_id, r.properties "
        "FROM jsonb_to_recordset(%s::jsonb) AS r(source text, target text, properties jsonb) "
        f'JOIN {GRAPH}."Memory" va ON {_vertex_id("va")} = to_jsonb(r.source)::text::ag_catalog.agtype '
        f'JOIN {GRAPH}."Memory" vb ON {_vertex_id("vb")} = to_jsonb(r.target)::text::ag_catalog.agtype'
    )


def _check_label(relation_type):
    if relation_type not in RELATION_PROPERTIES:
        raise ValueError(f"unknown relation type {relation_type!r}")


def merge_edges(relation_type, rows):
    """MERGE `relation_type` edges, rows {source, target, strength, updated_at, <properties>}.

    An existing edge gets the row's properties (replacing the old ones, as in the table row);
    a missing one is created. One set-based statement on the label table in the caller's
    transaction: AGE 1.5's own CREATE and SET look each entity up with a sequential heap scan
    (about 18 ms per edge at 100,000 vertices, see bench/README.md), while this statement uses
    the vertex-id btree and the start_id/end_id indexes. Null properties are left out, as Cypher
    does. The label comes from the fixed relation table, never from input.
    """
    _check_label(relation_type)
    if not rows:
        return
    payload = [
        {
            "source": str(row["source"]),
            "target": str(row["target"]),
            "properties": {
                name: row[name] for name in _edge_properties(relation_type) if row.get(name) is not None
            },
        }
        for row in rows
    ]
    table = f'{GRAPH}."{relation_type}"'
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH rows AS MATERIALIZED ({_edge_rows_sql()}), "
            f"updated AS (UPDATE {table} e SET properties = rows.properties::text::ag_catalog.agtype "
            "FROM rows WHERE e.start_id = rows.start_id AND e.end_id = rows.end_id "
            "RETURNING e.start_id, e.end_id) "
            f"INSERT INTO {table} (start_id, end_id, properties) "
            "SELECT start_id, end_id, properties::text::ag_catalog.agtype FROM rows "
            "WHERE NOT EXISTS (SELECT 1 FROM updated u WHERE u.start_id = rows.start_id "
            "AND u.end_id = rows.end_id)",
            [json.dumps(payload)],
        )


def remove_edges(relation_type, pairs):
    """Delete the `relation_type` edges between these (source, target) memory id pairs."""
    _check_label(relation_type)
    payload = [{"source": str(source), "target": str(target), "properties": {}} for source, target in pairs]
    if not payload:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            f'WITH rows AS MATERIALIZED ({_edge_rows_sql()}) DELETE FROM {GRAPH}."{relation_type}" e '
            "USING rows WHERE e.start_id = rows.start_id AND e.end_id = rows.end_id",
            [json.dumps(payload)],
        )


# Both directions of one hop in one statement: a directed pattern each (an undirected one cannot
# use the start_id/end_id indexes), outgoing edges first.
HOP = (
    "UNWIND $ids AS sid MATCH (a:Memory)-[e]->(b:Memory) WHERE a.id = sid AND e.strength >= $min_strength "
    "RETURN a.id, b.id, label(e), e.strength, true "
    "UNION ALL "
    "UNWIND $ids AS sid MATCH (a:Memory)<-[e]-(b:Memory) WHERE a.id = sid AND e.strength >= $min_strength "
    "RETURN a.id, b.id, label(e), e.strength, false"
)


def hop(seed_ids, min_strength=0.0):
    """One hop from the seeds in both directions: rows (seed id, neighbour id, relation type,
    strength, outgoing), the edges leaving the seeds first, then those arriving at them.

    Every edge label is spanned and all seeds go in one UNWIND. Edges only ever join two memories
    of the same owner, so seeds of one owner reach only that owner's memories (a filter on the
    neighbour's owner would make PostgreSQL start from the whole label instead). Run it inside
    `nested_loop_plan()`.
    """
    ids = [str(seed_id) for seed_id in seed_ids]
    if not ids:
        return []
    return cypher(
        HOP,
        {"ids": ids, "min_strength": float(min_strength)},
        columns=(
            ("seed", "text"),
            ("neighbour", "text"),
            ("relation_type", "text"),
            ("strength", "float8"),
            ("outgoing", "boolean"),
        ),
    )


def _graph_edges_sql():
    """Every graph edge as (source uuid text, target uuid text, label, strength), all labels."""
    return "\nUNION ALL\n".join(
        f"SELECT vs.memory_id AS source, vt.memory_id AS target, '{label}' AS relation_type, "
        f"({EDGE_STRENGTH})::text::float8 AS strength "
        f'FROM {GRAPH}."{label}" e LEFT JOIN vertices vs ON vs.gid = e.start_id '
        "LEFT JOIN vertices vt ON vt.gid = e.end_id"
        for label in RELATION_PROPERTIES
    )


RELINK_SQL = """
WITH moved AS (
    SELECT graphid AS stale, namespace::oid AS current FROM ag_catalog.ag_graph
    WHERE graphid <> namespace::oid
),
labels AS (
    UPDATE ag_catalog.ag_label l SET graph = m.current FROM moved m WHERE l.graph = m.stale
)
UPDATE ag_catalog.ag_graph g SET graphid = m.current FROM moved m WHERE g.graphid = m.stale
"""


def relink_catalog():
    """Give each graph in AGE's catalog the oid of its schema in this database; answer how many moved.

    pg_restore creates the graph's schema anew, under a new oid, and restores the catalog rows
    that name it: `ag_graph.namespace` (a regnamespace) follows by name, but `ag_graph.graphid`
    and `ag_label.graph` (plain oids) keep the source database's value, which AGE reports as
    "graph with oid N does not exist" (apache/age issue 2503). One statement moves both, so the
    foreign key between them holds at its end. Nothing changes when the catalog is current.
    """
    with connection.cursor() as cursor:
        cursor.execute(RELINK_SQL)
        return cursor.rowcount


def cypher_counts():
    """(vertices, edges) of the graph as Cypher sees them."""
    ((vertices,),) = cypher("MATCH (m:Memory) RETURN count(m)", columns=[("n", "bigint")])
    ((edges,),) = cypher("MATCH ()-[e]->() RETURN count(e)", columns=[("n", "bigint")])
    return vertices, edges


def differences(limit=1000):
    """Every difference between the tables and the graph, as (kind, detail) rows.

    Kinds: missing_vertex, extra_vertex, owner_mismatch, duplicate_vertex, missing_edge, extra_edge,
    dangling_edge, duplicate_edge, strength_mismatch. Set-based SQL over the label tables.
    """
    sql = f"""
WITH vertices AS MATERIALIZED (
    SELECT id AS gid, ({VERTEX_ID})::text AS memory_id, ({VERTEX_OWNER})::text AS owner
    FROM {GRAPH}."Memory"
),
edges AS MATERIALIZED ({_graph_edges_sql()}),
vertex_diff AS (
    SELECT 'missing_vertex' AS kind, m.id::text AS detail
    FROM memories_memory m LEFT JOIN vertices v ON v.memory_id = m.id::text WHERE v.gid IS NULL
    UNION ALL
    SELECT 'extra_vertex', v.memory_id
    FROM vertices v LEFT JOIN memories_memory m ON m.id::text = v.memory_id WHERE m.id IS NULL
    UNION ALL
    SELECT 'owner_mismatch', v.memory_id || ' graph owner ' || v.owner || ' table owner ' || m.owner_id
    FROM vertices v JOIN memories_memory m ON m.id::text = v.memory_id WHERE v.owner <> m.owner_id::text
    UNION ALL
    SELECT 'duplicate_vertex', memory_id || ' x' || count(*)
    FROM vertices GROUP BY memory_id HAVING count(*) > 1
),
edge_diff AS (
    SELECT 'missing_edge' AS kind, a.source_id || ' -[' || a.relation_type || ']-> ' || a.target_id AS detail
    FROM graph_association a LEFT JOIN edges e ON e.source = a.source_id::text
        AND e.target = a.target_id::text AND e.relation_type = a.relation_type
    WHERE e.source IS NULL
    UNION ALL
    SELECT 'extra_edge', e.source || ' -[' || e.relation_type || ']-> ' || e.target
    FROM edges e LEFT JOIN graph_association a ON e.source = a.source_id::text
        AND e.target = a.target_id::text AND e.relation_type = a.relation_type
    WHERE a.id IS NULL AND e.source IS NOT NULL AND e.target IS NOT NULL
    UNION ALL
    SELECT 'dangling_edge', relation_type || ' edge without its vertex: '
        || coalesce(source, '?') || ' -> ' || coalesce(target, '?')
    FROM edges WHERE source IS NULL OR target IS NULL
    UNION ALL
    SELECT 'strength_mismatch', a.source_id || ' -[' || a.relation_type || ']-> ' || a.target_id
        || ' table ' || a.strength || ' graph ' || coalesce(e.strength::text, 'none')
    FROM graph_association a JOIN edges e ON e.source = a.source_id::text
        AND e.target = a.target_id::text AND e.relation_type = a.relation_type
    WHERE e.strength IS NULL OR abs(e.strength - a.strength) > 1e-9
    UNION ALL
    SELECT 'duplicate_edge', source || ' -[' || relation_type || ']-> ' || target || ' x' || count(*)
    FROM edges GROUP BY source, target, relation_type HAVING count(*) > 1
)
SELECT kind, detail FROM vertex_diff UNION ALL SELECT kind, detail FROM edge_diff
ORDER BY 1, 2 LIMIT %s
"""
    with connection.cursor() as cursor:
        cursor.execute(sql, [limit])
        return cursor.fetchall()


def rebuild_from_tables(progress=None):
    """Empty the graph and load every memory and association from the tables (caller's transaction).

    Bulk SQL into the label tables: graph ids are drawn from each label's own sequence, exactly
    as AGE's CREATE does. Returns {"vertices": n, "<label>": n, ...}.
    """
    counts = {}
    with connection.cursor() as cursor:
        for label in RELATION_PROPERTIES:
            cursor.execute(f'DELETE FROM {GRAPH}."{label}"')
        cursor.execute(f'DELETE FROM {GRAPH}."Memory"')
        cursor.execute("DROP TABLE IF EXISTS graph_rebuild_vertices")
        cursor.execute(
            "CREATE TEMP TABLE graph_rebuild_vertices AS "
            "SELECT m.id AS memory_id, m.owner_id, ag_catalog._graphid("
            f"ag_catalog._label_id('{GRAPH}', 'Memory')::integer, "
            f"nextval('{GRAPH}.\"Memory_id_seq\"')) AS gid "
            "FROM memories_memory m"
        )
        cursor.execute("CREATE UNIQUE INDEX ON graph_rebuild_vertices (memory_id)")
        cursor.execute("ANALYZE graph_rebuild_vertices")
        cursor.execute(
            f'INSERT INTO {GRAPH}."Memory" (id, properties) '
            "SELECT gid, jsonb_build_object('id', memory_id::text, 'owner', owner_id)"
            "::text::ag_catalog.agtype "
            "FROM graph_rebuild_vertices"
        )
        counts["vertices"] = cursor.rowcount
        if progress:
            progress("vertices", cursor.rowcount)
        for label in RELATION_PROPERTIES:
            cursor.execute(
                f'INSERT INTO {GRAPH}."{label}" (start_id, end_id, properties) '
                "SELECT vs.gid, vt.gid, (a.properties || jsonb_build_object("
                "'strength', a.strength, 'updated_at', a.updated_at))::text::ag_catalog.agtype "
                "FROM graph_association a "
                "JOIN graph_rebuild_vertices vs ON vs.memory_id = a.source_id "
                "JOIN graph_rebuild_vertices vt ON vt.memory_id = a.target_id "
                "WHERE a.relation_type = %s",
                [label],
            )
            counts[label] = cursor.rowcount
            if progress:
                progress(label, cursor.rowcount)
        cursor.execute("DROP TABLE graph_rebuild_vertices")
    return counts
