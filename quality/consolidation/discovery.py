"""Association discovery: DISCOVERED edges between related memories nobody linked (runs before the boost).

Candidates are the live memories new or changed since the last applied run that discovered (all of
them on the first run; "changed" is entering the store, an edit or a re-enrichment), oldest change
first and at most `DISCOVERY_MAX_SEARCHED` a run: a run that stops there records how far it got
(`searched_through`) and the next run goes on from there, so a large store is covered over a few
runs instead of one run taking minutes. Each asks for its `DISCOVERY_NEIGHBOURS` nearest live
memories of the same owner (`quality.neighbours`: from the HNSW index, or exactly in an owner of
at most `EXACT_UP_TO` live memories) whose similarity lies in the band
[`DISCOVERY_MIN_SIMILARITY`, `DISCOVERY_MAX_SIMILARITY`): the band's top leaves near-duplicates to
detection and SIMILAR_TO to enrichment. The search runs chunk by chunk in parallel workers, like
detection's; never over all pairs.

A pair is kept when a second signal agrees with the vector:
- `shared_entity`: both carry the same `entity:` tag;
- `shared_tag`: both carry the same other tag (tags naming a memory type do not count: every
  memory of that type has one);
- `temporal`: they were created within `DISCOVERY_TEMPORAL_WINDOW_MINUTES` of each other;
and when the two are not linked in either direction by any type, and no curator has deleted or
promoted a discovered edge between them (graph.models.DiscoveryReview).

Each kept pair becomes one DISCOVERED association, origin consolidation, from the lower to the
higher memory id, with `kind` (its signals joined by "+"), `similarity` and
`confidence` = min(1, similarity × (0.6 + 0.2 × signals)), which is also its strength. A memory
gets at most `DISCOVERY_MAX_PER_MEMORY` discovered edges in all (strongest first) and a run adds
at most `DISCOVERY_MAX_PER_RUN`. Rows and graph edges are written by graph.services in the
phase's transaction.
"""

import logging
import time
from collections import defaultdict
from datetime import datetime

from django.conf import settings
from django.db import connection, transaction

from graph import entities
from graph.models import Origin
from graph.services import Link, associate_memories
from memories.models import MemoryType
from quality import neighbours
from quality.consolidation.boost import ASSOCIATION_REASON
from quality.consolidation.connections import counted_origins
from quality.models import ConsolidationRun

logger = logging.getLogger("quality.consolidation")

PHASE = "discover"
CHUNK_SIZE = 5000
DRY_RUN_PAIRS_SHOWN = 50

SESSION_SETTINGS = [
    "SET LOCAL hnsw.iterative_scan = relaxed_order",
    "SET LOCAL parallel_setup_cost = 0",
    "SET LOCAL parallel_tuple_cost = 0",
]

# When a memory last changed: it entered the store, its content changed, or it was re-enriched.
CHANGED = """GREATEST(m.entered_at, m.updated_at,
                (SELECT e.updated_at FROM graph_enrichment e WHERE e.memory_id = m.id))"""
# The live memories changed after `since` (every one when it is null) and up to `until` (no bound
# when it is null).
CANDIDATE = f"""
m.archived_at IS NULL
AND (%(since)s::timestamptz IS NULL OR {CHANGED} > %(since)s)
AND (%(until)s::timestamptz IS NULL OR {CHANGED} <= %(until)s)
"""
# The change time of the last candidate a capped run searches: the `MEMSITE_DISCOVERY_MAX_SEARCHED`-th
# oldest change (none when there are fewer candidates).
UNTIL = f"""
SELECT {CHANGED} AS changed FROM memories_memory m WHERE {CANDIDATE}
ORDER BY changed OFFSET %(max_searched)s - 1 LIMIT 1
"""

CREATE_PAIRS = """
CREATE TEMPORARY TABLE discover_pair (
    memory1 uuid NOT NULL, memory2 uuid NOT NULL, similarity float8 NOT NULL
) ON COMMIT DROP
"""

# One hash slice of the candidates searches its neighbours. It reads memories_memory, not a
# temporary table, so that parallel workers can run it. Memories at or above the band's top are
# skipped inside the search; the band's bottom is applied to the k found, so a sparse
# neighbourhood costs no more than k index results.
NEIGHBOUR_CHUNK = f"""
CREATE TEMPORARY TABLE discover_chunk ON COMMIT DROP AS
SELECT LEAST(m.id, n.id) AS memory1, GREATEST(m.id, n.id) AS memory2, 1 - n.distance AS similarity
FROM memories_memory m
CROSS JOIN LATERAL {neighbours.searched("m", "%(neighbours)s", beyond="1 - %(max_similarity)s")} n
WHERE {CANDIDATE}
  AND (hashtext(m.id::text) & 2147483647) %% %(chunks)s = %(chunk)s
  AND n.distance <= 1 - %(min_similarity)s
"""

# The pairs in the band that a second signal agrees with, each with its kind and confidence.
CREATE_SCORED = """
CREATE TEMPORARY TABLE discover_scored ON COMMIT DROP AS
WITH pair AS (
    SELECT memory1, memory2, max(similarity) AS similarity FROM discover_pair GROUP BY memory1, memory2
),
signal AS (
    SELECT p.memory1, p.memory2, p.similarity, a.owner_id,
           EXISTS (SELECT 1 FROM unnest(a.tags) t
                   WHERE t LIKE %(entity)s AND t = ANY(b.tags)) AS shared_entity,
           EXISTS (SELECT 1 FROM unnest(a.tags) t
                   WHERE t NOT LIKE %(entity)s AND lower(t) <> ALL(%(type_tags)s) AND t = ANY(b.tags))
               AS shared_tag,
           %(window)s > 0 AND abs(EXTRACT(EPOCH FROM a.created_at - b.created_at)) <= %(window)s * 60
               AS temporal
    FROM pair p
    JOIN memories_memory a ON a.id = p.memory1
    JOIN memories_memory b ON b.id = p.memory2
    WHERE a.owner_id = b.owner_id
      AND NOT EXISTS (SELECT 1 FROM graph_association x
                      WHERE x.source_id = p.memory1 AND x.target_id = p.memory2)
      AND NOT EXISTS (SELECT 1 FROM graph_association x
                      WHERE x.source_id = p.memory2 AND x.target_id = p.memory1)
      AND NOT EXISTS (SELECT 1 FROM graph_discoveryreview r
                      WHERE r.memory1_id = p.memory1 AND r.memory2_id = p.memory2)
)
SELECT s.*, concat_ws('+', CASE WHEN shared_entity THEN 'shared_entity' END,
                      CASE WHEN shared_tag THEN 'shared_tag' END,
                      CASE WHEN temporal THEN 'temporal' END) AS kind,
       round(LEAST(1, similarity * (0.6 + 0.2 * (shared_entity::int + shared_tag::int + temporal::int)))
             ::numeric, 4)::float8 AS confidence
FROM signal s
WHERE shared_entity OR shared_tag OR temporal
"""

# The scored pairs to create, strongest first: a memory's place among its pairs counts the
# discovered edges it already has, and a pair is kept when it is within the cap at both ends.
KEPT_PAIRS = """
WITH ends AS (
    SELECT memory1 AS memory, memory1, memory2, confidence FROM discover_scored
    UNION ALL
    SELECT memory2, memory1, memory2, confidence FROM discover_scored
),
ranked AS (
    SELECT e.memory1, e.memory2,
           row_number() OVER (PARTITION BY e.memory ORDER BY e.confidence DESC, e.memory1, e.memory2)
           + (SELECT count(*) FROM graph_association x
              WHERE x.relation_type = 'DISCOVERED' AND (x.source_id = e.memory OR x.target_id = e.memory))
               AS place
    FROM ends e
),
capped AS (
    SELECT memory1, memory2 FROM ranked GROUP BY memory1, memory2 HAVING max(place) <= %(per_memory)s
)
SELECT s.owner_id, s.memory1, s.memory2, s.similarity, s.kind, s.confidence
FROM discover_scored s
JOIN capped c ON c.memory1 = s.memory1 AND c.memory2 = s.memory2
ORDER BY s.confidence DESC, s.memory1, s.memory2
LIMIT %(per_run)s
"""


def discovered_through():
    """How far the last applied run that discovered got (None: never ran): the change time of the
    last memory it searched when it stopped at the cap, else when it started."""
    run = (
        ConsolidationRun.objects.filter(
            dry_run=False, status=ConsolidationRun.Status.SUCCEEDED, phases__has_key=PHASE
        )
        .order_by("-started_at")
        .first()
    )
    if run is None:
        return None
    through = run.phases[PHASE].get("searched_through")
    return datetime.fromisoformat(through) if through else run.started_at


def _params(since):
    return {
        "since": since,
        "until": None,
        "max_searched": settings.DISCOVERY_MAX_SEARCHED,
        "neighbours": settings.DISCOVERY_NEIGHBOURS,
        "min_similarity": settings.DISCOVERY_MIN_SIMILARITY,
        "max_similarity": settings.DISCOVERY_MAX_SIMILARITY,
        "window": settings.DISCOVERY_TEMPORAL_WINDOW_MINUTES,
        "per_memory": settings.DISCOVERY_MAX_PER_MEMORY,
        "per_run": settings.DISCOVERY_MAX_PER_RUN,
        "entity": entities.PREFIX + "%",
        "type_tags": [value.lower() for value in MemoryType.values],
    }


def _search(cursor, params):
    """Fill discover_pair with the candidates' neighbours in the band; answer the candidate count."""
    cursor.execute(f"SET LOCAL hnsw.ef_search = {max(40, settings.DISCOVERY_NEIGHBOURS)}")
    for statement in SESSION_SETTINGS:
        cursor.execute(statement)
    params["small_owners"] = neighbours.prepare(cursor)
    cursor.execute("DROP TABLE IF EXISTS pg_temp.discover_pair, pg_temp.discover_scored")
    cursor.execute(CREATE_PAIRS)
    cursor.execute(UNTIL, params)
    found = cursor.fetchone()
    params["until"] = found[0] if found else None
    cursor.execute(f"SELECT count(*) FROM memories_memory m WHERE {CANDIDATE}", params)
    (candidates,) = cursor.fetchone()
    chunks = max(1, -(-candidates // CHUNK_SIZE))
    for chunk in range(chunks if candidates else 0):
        cursor.execute("DROP TABLE IF EXISTS pg_temp.discover_chunk")
        cursor.execute(NEIGHBOUR_CHUNK, {**params, "chunks": chunks, "chunk": chunk})
        cursor.execute("INSERT INTO discover_pair SELECT * FROM discover_chunk")
        cursor.execute("DROP TABLE discover_chunk")
    cursor.execute("ANALYZE discover_pair")
    return candidates


def discovery_phase(dry_run=False):
    """Discover associations in one transaction; answer the phase's counts.

    A dry run also lists (some of) the pairs it would create; the caller rolls its writes back.
    """
    if not settings.DISCOVERY_ENABLED or settings.DISCOVERY_MAX_PER_RUN == 0:
        return {"enabled": False}
    params = _params(discovered_through())
    started = time.perf_counter()
    with transaction.atomic(), connection.cursor() as cursor:
        candidates = _search(cursor, params)
        search_ms = round((time.perf_counter() - started) * 1000)
        cursor.execute("SELECT count(DISTINCT (memory1, memory2)) FROM discover_pair")
        (in_band,) = cursor.fetchone()
        cursor.execute(CREATE_SCORED, params)
        cursor.execute("SELECT count(*) FROM discover_scored")
        (agreed,) = cursor.fetchone()
        cursor.execute(KEPT_PAIRS, params)
        rows = cursor.fetchall()
        cursor.execute("DROP TABLE discover_pair, discover_scored")
        by_owner = defaultdict(list)
        kinds = defaultdict(int)
        for owner, memory1, memory2, similarity, kind, confidence in rows:
            properties = {
                "kind": kind,
                "confidence": confidence,
                "similarity": round(similarity, 4),
                "origin": Origin.CONSOLIDATION.value,
            }
            by_owner[owner].append(Link(memory1, memory2, "DISCOVERED", confidence, properties))
            for signal in kind.split("+"):
                kinds[signal] += 1
        created = sum(
            len(associate_memories(owner, links, Origin.CONSOLIDATION)) for owner, links in by_owner.items()
        )
    counts = {
        "since": params["since"].isoformat() if params["since"] else "first run",
        "candidates": candidates,
        **({"searched_through": params["until"].isoformat()} if params["until"] else {}),
        "in_band": in_band,
        "agreed": agreed,
        "created": created,
        **{kind: kinds[kind] for kind in ("shared_entity", "shared_tag", "temporal")},
        "search_ms": search_ms,
    }
    if dry_run:
        counts["pairs"] = [
            {"source": str(link.source), "target": str(link.target), **link.properties}
            for links in by_owner.values()
            for link in links
        ][:DRY_RUN_PAIRS_SHOWN]
    logger.info("Association discovery: %s", {key: value for key, value in counts.items() if key != "pairs"})
    return counts


# Association-boosted live memories that have DISCOVERED edges and would be below the connection
# minimum without them: set-based from the DISCOVERED edges' ends, so its cost follows their number.
# The ends are looked up by primary key as one array: a join let the planner read every boosted
# memory through the boost index instead, three times the work at 100,000 memories.
RESTING_ON_DISCOVERY = """
WITH discovered AS (
    SELECT source_id AS id FROM graph_association WHERE relation_type = 'DISCOVERED'
    UNION
    SELECT target_id FROM graph_association WHERE relation_type = 'DISCOVERED'
),
boosted AS (
    SELECT m.id FROM memories_memory m
    WHERE m.id = ANY(ARRAY(SELECT id FROM discovered))
      AND m.archived_at IS NULL AND m.quality_boost_applied AND m.quality_boost_reason = %(reason)s
      AND (%(ids)s::uuid[] IS NULL OR m.id = ANY(%(ids)s::uuid[]))
),
authored AS (
    SELECT b.id AS memory_id, a.target_id AS neighbour_id
    FROM boosted b JOIN graph_association a ON a.source_id = b.id
    WHERE a.origin = ANY(%(origins)s) AND a.relation_type <> 'DISCOVERED'
    UNION
    SELECT b.id, a.source_id
    FROM boosted b JOIN graph_association a ON a.target_id = b.id
    WHERE a.origin = ANY(%(origins)s) AND a.relation_type <> 'DISCOVERED'
),
connected AS (
    SELECT p.memory_id, count(*) AS connections
    FROM authored p JOIN memories_memory n ON n.id = p.neighbour_id AND n.archived_at IS NULL
    GROUP BY p.memory_id
)
SELECT b.id FROM boosted b LEFT JOIN connected c ON c.memory_id = b.id
WHERE coalesce(c.connections, 0) < %(min_connections)s
"""


def _resting_on_discovery(sql, ids):
    with connection.cursor() as cursor:
        cursor.execute(
            sql,
            {
                "reason": ASSOCIATION_REASON,
                "ids": None if ids is None else [str(pk) for pk in ids],
                "origins": counted_origins(),
                "min_connections": settings.BOOST_MIN_CONNECTIONS,
            },
        )
        return cursor.fetchall()


def boosts_resting_on_discovery(ids):
    """Which of these memories hold a boost that needs their discovered links."""
    return {row[0] for row in _resting_on_discovery(RESTING_ON_DISCOVERY, list(ids))}


def count_boosts_resting_on_discovery():
    """How many live memories hold a boost that needs their discovered links."""
    return _resting_on_discovery(f"SELECT count(*) FROM ({RESTING_ON_DISCOVERY}) AS resting", None)[0][0]
