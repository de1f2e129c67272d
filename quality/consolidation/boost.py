"""Association-based quality boost (seed 000 and SPEC section 8), set-based over the whole table.

One boost phase runs, in one transaction: boost decay, then new and recomputed association
boosts, then (when enabled) the bidirectional boost. Each step is one statement that updates the
memories, writes their QualityBoost history rows and returns what changed, for the log lines.
"""

import logging

from django.conf import settings
from django.db import connection, transaction

from quality.consolidation.connections import create_connections_table
from quality.rules import boosted_score_sql

logger = logging.getLogger("quality.consolidation")

ASSOCIATION_REASON = "association_connections"
BIDIRECTIONAL_REASON = "bidirectional_high_quality"
# The seed's persisted fields, kept in `metadata` under these names as well as on the row.
BOOST_METADATA_KEYS = [
    "quality_boost_applied",
    "quality_boost_date",
    "quality_boost_reason",
    "quality_boost_connection_count",
    "original_quality_before_boost",
]
DECAY_AFTER_DAYS = 90
DECAY_CONNECTION_RATIO = 0.5
BIDIRECTIONAL_FACTOR = 1.05
BIDIRECTIONAL_BELOW = 0.6
# A boosted score that moved less than this (the precision the log lines show) is not recorded again.
EPSILON = 0.0005
CONNECTIONS = "consolidation_connections"

REMOVE_BOOST_SQL = """
WITH removed AS (
    UPDATE memories_memory AS m SET
        quality_score = old.quality_overall,
        quality_boost_applied = false,
        quality_boost_date = NULL,
        quality_boost_reason = '',
        quality_boost_connection_count = NULL,
        original_quality_before_boost = NULL,
        quality_boost_factor = NULL,
        metadata = old.metadata - %(keys)s::text[]
    FROM memories_memory AS old
    {join}
    WHERE m.id = old.id AND old.quality_boost_applied AND ({condition})
    RETURNING m.id, {connections} AS connections, old.quality_score AS before,
              m.quality_score AS after, COALESCE(old.quality_boost_factor, 1) AS factor
),
history AS (
    INSERT INTO quality_qualityboost
        (memory_id, kind, connection_count, quality_before, quality_after, factor, created_at, run_id)
    SELECT id, %(kind)s, connections, before, after, factor, now(), %(run)s FROM removed
)
SELECT id, connections, before, after FROM removed
"""

DECAY_CONDITION = """
    old.archived_at IS NULL
    AND old.quality_boost_reason = %(reason)s
    AND old.quality_boost_date < now() - make_interval(days => %(decay_days)s)
    AND COALESCE(c.connections, 0) < old.quality_boost_connection_count * %(decay_ratio)s
"""

# New association boosts and recomputed existing ones, in one statement. An existing boost keeps
# its date, boost-time connection count and original quality; only its score follows the current
# overall quality (no compounding). `latest` is the score the history last recorded.
ASSOCIATION_BOOST_SQL = f"""
WITH latest AS (
    SELECT DISTINCT ON (b.memory_id) b.memory_id, b.quality_after
    FROM quality_qualityboost AS b
    JOIN memories_memory AS boosted ON boosted.id = b.memory_id AND boosted.quality_boost_applied
    WHERE b.kind IN ('applied', 'recomputed', 'bidirectional')
    ORDER BY b.memory_id, b.created_at DESC, b.id DESC
),
flagged AS (
    SELECT m.id, m.quality_overall AS overall, m.quality_score AS current, l.quality_after AS recorded,
           COALESCE(c.connections, 0) AS connections,
           m.quality_boost_applied AND m.quality_boost_reason = %(reason)s AS associated,
           %(apply_new)s
               AND COALESCE(c.connections, 0) >= %(min_connections)s
               AND (%(min_connected_quality)s::float8 IS NULL
                    OR c.connected_quality >= %(min_connected_quality)s::float8)
               AND {boosted_score_sql('m.quality_overall', '%(factor)s')} > m.quality_overall
                   AS qualifies,
           m.quality_boost_applied, m.quality_boost_factor, m.quality_boost_reason,
           m.quality_boost_date, m.quality_boost_connection_count, m.original_quality_before_boost
    FROM memories_memory AS m
    LEFT JOIN {CONNECTIONS} AS c ON c.memory_id = m.id
    LEFT JOIN latest AS l ON l.memory_id = m.id
    WHERE m.archived_at IS NULL AND (m.quality_boost_applied OR c.connections >= %(min_connections)s)
),
-- A memory gets a fresh association boost when it qualifies and has none yet (a bidirectional
-- boost is replaced by it); any other boosted memory keeps its boost, recomputed.
scored AS (
    SELECT f.*,
           f.quality_boost_applied AND NOT (f.qualifies AND NOT f.associated) AS was_boosted,
           CASE WHEN f.associated OR (f.qualifies AND NOT f.associated) THEN %(factor)s
                ELSE COALESCE(f.quality_boost_factor, 1) END AS factor
    FROM flagged AS f
),
projected AS (
    SELECT s.*, {boosted_score_sql('s.overall', 's.factor')} AS after FROM scored AS s
),
candidate AS (
    SELECT p.*,
           CASE WHEN p.was_boosted THEN COALESCE(p.recorded, p.current) ELSE p.current END AS before
    FROM projected AS p
    WHERE (p.was_boosted
           AND (abs(p.after - p.current) > %(epsilon)s
                OR p.recorded IS NULL
                OR abs(p.after - p.recorded) > %(epsilon)s))
       OR (p.qualifies AND NOT p.associated)
),
boost AS (
    SELECT c.*,
           CASE WHEN c.was_boosted THEN c.quality_boost_reason ELSE %(reason)s END AS new_reason,
           CASE WHEN c.was_boosted THEN c.quality_boost_date ELSE now() END AS new_date,
           CASE WHEN c.was_boosted THEN c.quality_boost_connection_count ELSE c.connections END
               AS new_connections,
           CASE WHEN c.was_boosted THEN COALESCE(c.original_quality_before_boost, c.overall)
                ELSE c.overall END AS new_original
    FROM candidate AS c
),
changed AS (
    UPDATE memories_memory AS m SET
        quality_score = b.after,
        quality_boost_applied = true,
        quality_boost_date = b.new_date,
        quality_boost_reason = b.new_reason,
        quality_boost_connection_count = b.new_connections,
        original_quality_before_boost = b.new_original,
        quality_boost_factor = b.factor,
        metadata = m.metadata || jsonb_build_object(
            'quality_boost_applied', true,
            'quality_boost_date', to_char(b.new_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
            'quality_boost_reason', b.new_reason,
            'quality_boost_connection_count', b.new_connections,
            'original_quality_before_boost', b.new_original)
    FROM boost AS b
    WHERE m.id = b.id
    RETURNING m.id, b.was_boosted, b.new_reason, b.overall, b.before, b.after, b.connections, b.factor
),
history AS (
    INSERT INTO quality_qualityboost
        (memory_id, kind, connection_count, quality_before, quality_after, factor, created_at, run_id)
    SELECT id, CASE WHEN was_boosted THEN 'recomputed' ELSE 'applied' END,
           connections, before, after, factor, now(), %(run)s
    FROM changed
)
SELECT id, was_boosted, new_reason, overall, before, after, connections FROM changed
ORDER BY id
"""

# High-quality memories lift their weaker, not yet boosted neighbours a little (seed 000, phase 4).
BIDIRECTIONAL_SQL = f"""
WITH candidate AS (
    SELECT m.id, m.quality_overall AS overall, m.quality_score AS before, c.strong_neighbours,
           {boosted_score_sql('m.quality_overall', '%(factor)s')} AS after
    FROM memories_memory AS m
    JOIN {CONNECTIONS} AS c ON c.memory_id = m.id
    WHERE m.archived_at IS NULL AND NOT m.quality_boost_applied
      AND c.strong_neighbours > 0
      AND m.quality_score < %(below)s
      AND {boosted_score_sql('m.quality_overall', '%(factor)s')} > m.quality_overall
),
changed AS (
    UPDATE memories_memory AS m SET
        quality_score = c.after,
        quality_boost_applied = true,
        quality_boost_date = now(),
        quality_boost_reason = %(reason)s,
        quality_boost_connection_count = c.strong_neighbours,
        original_quality_before_boost = c.overall,
        quality_boost_factor = %(factor)s,
        metadata = m.metadata || jsonb_build_object(
            'quality_boost_applied', true,
            'quality_boost_date', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
            'quality_boost_reason', %(reason)s::text,
            'quality_boost_connection_count', c.strong_neighbours,
            'original_quality_before_boost', c.overall)
    FROM candidate AS c
    WHERE m.id = c.id
    RETURNING m.id, c.before, c.after, c.strong_neighbours
),
history AS (
    INSERT INTO quality_qualityboost
        (memory_id, kind, connection_count, quality_before, quality_after, factor, created_at, run_id)
    SELECT id, 'bidirectional', strong_neighbours, before, after, %(factor)s, now(), %(run)s
    FROM changed
)
SELECT id, before, after, strong_neighbours FROM changed ORDER BY id
"""


def short_id(memory_id):
    """The 12-character id the seed's log lines show."""
    return memory_id.hex[:12]


def _remove_boosts(cursor, condition, kind, params, join="", connections="0"):
    sql = REMOVE_BOOST_SQL.format(join=join, condition=condition, connections=connections)
    cursor.execute(sql, {"keys": BOOST_METADATA_KEYS, "kind": kind, **params})
    return cursor.fetchall()


def _decay(cursor, run_id):
    rows = _remove_boosts(
        cursor,
        DECAY_CONDITION,
        "decayed",
        {
            "run": run_id,
            "reason": ASSOCIATION_REASON,
            "decay_days": DECAY_AFTER_DAYS,
            "decay_ratio": DECAY_CONNECTION_RATIO,
        },
        join=f"LEFT JOIN {CONNECTIONS} AS c ON c.memory_id = old.id",
        connections="COALESCE(c.connections, 0)",
    )
    for memory_id, connections, before, after in rows:
        logger.info(
            "Association quality boost decayed for %s: %.3f → %.3f (%d connections left)",
            short_id(memory_id),
            before,
            after,
            connections,
        )
    return len(rows)


def _associate(cursor, run_id, dry_run):
    cursor.execute(
        ASSOCIATION_BOOST_SQL,
        {
            "run": run_id,
            "reason": ASSOCIATION_REASON,
            "factor": settings.BOOST_FACTOR,
            "min_connections": settings.BOOST_MIN_CONNECTIONS,
            "min_connected_quality": settings.BOOST_MIN_CONNECTED_QUALITY,
            "apply_new": settings.BOOST_ENABLED,
            "epsilon": EPSILON,
        },
    )
    applied = recomputed = 0
    for memory_id, was_boosted, reason, overall, before, after, connections in cursor.fetchall():
        if was_boosted:
            recomputed += 1
        else:
            applied += 1
        if reason != ASSOCIATION_REASON:
            continue
        logger.debug(
            "Association quality boost: %s quality %.3f → %.3f (%d connections)",
            short_id(memory_id),
            overall,
            after,
            connections,
        )
        if not dry_run:
            logger.info(
                "Persisting association quality boost for %s: %.3f → %.3f", short_id(memory_id), before, after
            )
    return applied, recomputed


def _bidirectional(cursor, run_id):
    cursor.execute(
        BIDIRECTIONAL_SQL,
        {
            "run": run_id,
            "reason": BIDIRECTIONAL_REASON,
            "factor": BIDIRECTIONAL_FACTOR,
            "below": BIDIRECTIONAL_BELOW,
        },
    )
    rows = cursor.fetchall()
    for memory_id, before, after, strong in rows:
        logger.debug(
            "Bidirectional quality boost: %s quality %.3f → %.3f (%d high-quality neighbours)",
            short_id(memory_id),
            before,
            after,
            strong,
        )
    return len(rows)


def boost_phase(run_id=None, dry_run=False):
    """Phase 2 over every live memory, in one transaction; answer the counts of what changed."""
    with transaction.atomic(), connection.cursor() as cursor:
        create_connections_table(cursor, CONNECTIONS)
        cursor.execute(
            f"SELECT count(*) FILTER (WHERE connections >= %s), count(*) FROM {CONNECTIONS}",
            [settings.BOOST_MIN_CONNECTIONS],
        )
        eligible, connected = cursor.fetchone()
        decayed = _decay(cursor, run_id) if settings.BOOST_DECAY_ENABLED else 0
        applied, recomputed = _associate(cursor, run_id, dry_run)
        bidirectional = _bidirectional(cursor, run_id) if settings.BOOST_BIDIRECTIONAL_ENABLED else 0
        cursor.execute(f"DROP TABLE {CONNECTIONS}")
    return {
        "connected": connected,
        "well_connected": eligible,
        "applied": applied,
        "recomputed": recomputed,
        "decayed": decayed,
        "bidirectional": bidirectional,
    }


def reset_boost(memory, run_id=None):
    """Remove a memory's boost (quality_score back to its overall quality); answer whether it had one.

    The next consolidation run boosts it again if it is still well connected.
    """
    with transaction.atomic(), connection.cursor() as cursor:
        rows = _remove_boosts(
            cursor,
            "old.id = %(memory)s",
            "reset",
            {"run": run_id, "memory": memory.pk},
            connections="COALESCE(old.quality_boost_connection_count, 0)",
        )
    memory.refresh_from_db()
    for memory_id, _, before, after in rows:
        logger.info("Quality boost reset for %s: %.3f → %.3f", short_id(memory_id), before, after)
    return bool(rows)


def reset_boosts(memory_ids, run_id=None):
    """Remove the boosts of many memories in one statement; answer how many had one."""
    with transaction.atomic(), connection.cursor() as cursor:
        rows = _remove_boosts(
            cursor,
            "old.id = ANY(%(memories)s::uuid[])",
            "reset",
            {"run": run_id, "memories": list(memory_ids)},
            connections="COALESCE(old.quality_boost_connection_count, 0)",
        )
    for memory_id, _, before, after in rows:
        logger.info("Quality boost reset for %s: %.3f → %.3f", short_id(memory_id), before, after)
    return len(rows)
