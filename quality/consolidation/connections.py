"""Connection counts of every live memory, in one aggregate over the association table.

A memory's connections are the distinct live memories linked to it by an association in either
direction. Only user-authored and consolidation-discovered associations count; enrichment's
SIMILAR_TO and PRECEDED_BY edges would make nearly every memory "well connected", so they count
only with MEMSITE_BOOST_COUNT_ENRICHMENT_EDGES.
"""

from django.conf import settings

from graph.models import Origin

# Neighbours at or above this quality give a bidirectional boost (seed 000, phase 4).
STRONG_NEIGHBOUR_QUALITY = 0.8

CONNECTIONS_SQL = """
SELECT pair.memory_id,
       count(*) AS connections,
       avg(neighbour.quality_score) AS connected_quality,
       count(*) FILTER (WHERE neighbour.quality_score >= %(strong_quality)s) AS strong_neighbours
FROM (
    SELECT source_id AS memory_id, target_id AS neighbour_id
    FROM graph_association WHERE origin = ANY(%(origins)s)
    UNION
    SELECT target_id, source_id
    FROM graph_association WHERE origin = ANY(%(origins)s)
) AS pair
JOIN memories_memory AS neighbour
  ON neighbour.id = pair.neighbour_id AND neighbour.archived_at IS NULL
GROUP BY pair.memory_id
"""


def counted_origins():
    origins = [Origin.USER.value, Origin.CONSOLIDATION.value]
    if settings.BOOST_COUNT_ENRICHMENT_EDGES:
        origins.append(Origin.ENRICHMENT.value)
    return origins


def connection_params():
    return {"origins": counted_origins(), "strong_quality": STRONG_NEIGHBOUR_QUALITY}


def create_connections_table(cursor, table="consolidation_connections"):
    """Materialize the counts as a temporary table keyed by memory id (dropped by the caller)."""
    cursor.execute(f"DROP TABLE IF EXISTS {table}")
    cursor.execute(f"CREATE TEMPORARY TABLE {table} AS {CONNECTIONS_SQL}", connection_params())
    cursor.execute(f"ALTER TABLE {table} ADD PRIMARY KEY (memory_id)")
    cursor.execute(f"ANALYZE {table}")
