"""The AGE labels of the graph `memsite` and the indexes AGE does not create itself.

One vertex label `Memory` and one edge label per relation type. Vertex lookups use a btree on the
`id` property accessor (`WHERE m.id = ...`) and a GIN index on the properties (`{id: ...}`); every
traversal step uses a btree on the edge label's `start_id` or `end_id`. Idempotent, so it also
runs on a database whose labels already exist.
"""

from django.db import migrations

GRAPH = "memsite"
RELATIONS = [
    "RELATES_TO",
    "LEADS_TO",
    "OCCURRED_BEFORE",
    "PREFERS_OVER",
    "EXEMPLIFIES",
    "CONTRADICTS",
    "REINFORCES",
    "INVALIDATED_BY",
    "EVOLVED_INTO",
    "DERIVED_FROM",
    "PART_OF",
    "SIMILAR_TO",
    "PRECEDED_BY",
    "DISCOVERED",
]


def create_label(kind, name):
    function = "create_vlabel" if kind == "v" else "create_elabel"
    return (
        f"SELECT ag_catalog.{function}('{GRAPH}', '{name}') WHERE NOT EXISTS ("
        f"SELECT 1 FROM ag_catalog.ag_label l JOIN ag_catalog.ag_graph g ON g.graphid = l.graph "
        f"WHERE g.name = '{GRAPH}' AND l.name = '{name}')"
    )


def edge_indexes(name):
    table = f'{GRAPH}."{name}"'
    slug = name.lower()
    return [
        f"CREATE INDEX IF NOT EXISTS age_{slug}_start ON {table} USING btree (start_id)",
        f"CREATE INDEX IF NOT EXISTS age_{slug}_end ON {table} USING btree (end_id)",
    ]


FORWARD = [
    create_label("v", "Memory"),
    *[create_label("e", name) for name in RELATIONS],
    f'CREATE INDEX IF NOT EXISTS age_memory_id ON {GRAPH}."Memory" USING btree '
    "(ag_catalog.agtype_access_operator(VARIADIC ARRAY[properties, '\"id\"'::ag_catalog.agtype]))",
    f'CREATE INDEX IF NOT EXISTS age_memory_properties ON {GRAPH}."Memory" USING gin (properties)',
    *[statement for name in RELATIONS for statement in edge_indexes(name)],
]


class Migration(migrations.Migration):
    dependencies = [
        ("memsite", "0001_extensions"),
        ("graph", "0001_initial"),
    ]

    operations = [migrations.RunSQL(FORWARD, reverse_sql=migrations.RunSQL.noop)]
