"""Relevance, quality-based retention, auto-cleanup and snapshots (SPEC section 8, phases 3 to 5).

Each phase is one transaction of set-based statements over every live memory. Archival is soft
and goes through the one archive writer, `memories.services.archive_memories`, with each memory's
own reason; nothing here deletes a row. Protected memories (the flag, or a tag critical /
important / reference / permanent) are never archived and keep relevance ≥ 0.5.
"""

import json

from django.conf import settings
from django.db import connection, transaction
from django.db.models import BooleanField
from django.db.models.expressions import RawSQL

from memories.models import Memory
from memories.services import archive_memories
from quality.consolidation.connections import CONNECTIONS_SQL, connection_params
from quality.metrics import decay, floor
from quality.rules import HIGH, MEDIUM, tier_counts_sql

PROTECTED_TAGS = ["critical", "important", "reference", "permanent"]
PROTECTED_MIN_RELEVANCE = 0.5
# Days a memory stays relevant, by type; the tags critical / reference / temporary override.
RETENTION_BY_TYPE = {
    "Decision": 365,
    "Insight": 180,
    "Preference": 180,
    "Style": 180,
    "Pattern": 90,
    "Habit": 90,
    "Context": 30,
    "Memory": 30,
}
RETENTION_BY_TAG = [("critical", 365), ("reference", 180), ("temporary", 7)]
DEFAULT_RETENTION_DAYS = 30


def protected_sql(alias=""):
    """Whether a memory row is protected from archival (the tags are constants)."""
    return f"({alias}protected OR {alias}tags && ARRAY{PROTECTED_TAGS!r}::varchar[])"


RELEVANCE_SQL = f"""
WITH connections AS ({CONNECTIONS_SQL}),
factors AS (
    SELECT m.id,
           2 * {floor("m.importance")} AS base_importance,
           GREATEST(0, EXTRACT(EPOCH FROM now() - GREATEST(m.created_at, m.updated_at)) / 86400.0)
               AS age_days,
           CASE {{tag_cases}}
                ELSE COALESCE((%(type_days)s::jsonb ->> m.memory_type)::float8, %(default_days)s)
           END AS retention_days,
           COALESCE(c.connections, 0) AS connections,
           CASE WHEN m.last_accessed_at IS NULL THEN 1.0
                WHEN m.last_accessed_at >= now() - interval '1 day' THEN 1.5
                WHEN m.last_accessed_at >= now() - interval '7 days' THEN 1.2
                WHEN m.last_accessed_at >= now() - interval '30 days' THEN 1.1
                ELSE 1.0 END AS access_boost,
           1 + 0.5 * m.quality_score AS quality_multiplier,
           {protected_sql("m.")} AS is_protected
    FROM memories_memory AS m
    LEFT JOIN connections AS c ON c.memory_id = m.id
    WHERE m.archived_at IS NULL
),
scored AS (
    SELECT f.*,
           {decay("f.age_days / f.retention_days")} AS decay_factor,
           LEAST(2, 1 + 0.1 * f.connections) AS connection_boost
    FROM factors AS f
),
relevance AS (
    SELECT s.*,
           s.base_importance * s.decay_factor * s.connection_boost * s.access_boost
               * s.quality_multiplier AS raw
    FROM scored AS s
),
updated AS (
    UPDATE memories_memory AS m SET
        relevance_score = CASE WHEN r.is_protected THEN GREATEST(%(protected_min)s, r.raw) ELSE r.raw END,
        relevance_calculated_at = now(),
        metadata = m.metadata || jsonb_build_object('relevance_factors', jsonb_build_object(
            'base_importance', round(r.base_importance::numeric, 4),
            'age_days', round(r.age_days::numeric, 2),
            'retention_days', r.retention_days,
            'decay_factor', round(r.decay_factor::numeric, 6),
            'connection_count', r.connections,
            'connection_boost', round(r.connection_boost::numeric, 4),
            'access_boost', r.access_boost,
            'quality_multiplier', round(r.quality_multiplier::numeric, 4),
            'protected', r.is_protected))
    FROM relevance AS r
    WHERE m.id = r.id
    RETURNING r.is_protected
)
SELECT count(*), count(*) FILTER (WHERE is_protected) FROM updated
"""

INACTIVE_DAYS = "EXTRACT(EPOCH FROM now() - GREATEST(entered_at, last_accessed_at)) / 86400.0"
RETENTION_REASON = (
    "format('quality_retention: inactive %%s days, over the %%s-day threshold for quality %%s', "
    "round({days})::int, round({threshold})::int, to_char(quality_score, 'FM0.000'))"
)
CLEANUP_REASON = (
    "format('quality_cleanup: quality %%s below %%s since %%s', to_char(quality_score, 'FM0.000'), "
    "%s::text, to_char(low_quality_since AT TIME ZONE 'UTC', 'YYYY-MM-DD'))"
)
SUPERSEDED_REASON = (
    "format('superseded: replaced by %%s on %%s', superseded_by_id, "
    "to_char(valid_until AT TIME ZONE 'UTC', 'YYYY-MM-DD'))"
)
CLEANUP_DUE = "quality_score < %s AND low_quality_since < now() - make_interval(days => %s)"


SNAPSHOT_SQL = f"""
WITH stats AS (
    SELECT owner_id, count(*) AS total, avg(quality_score) AS average,
           {tier_counts_sql()},
           count(*) FILTER (WHERE quality_boost_applied) AS boosted,
           jsonb_build_object(
               'accuracy', round(avg(quality_accuracy)::numeric, 4),
               'completeness', round(avg(quality_completeness)::numeric, 4),
               'consistency', round(avg(quality_consistency)::numeric, 4),
               'timeliness', round(avg(quality_timeliness)::numeric, 4),
               'relevance', round(avg(quality_relevance)::numeric, 4)) AS dimensions
    FROM memories_memory WHERE archived_at IS NULL GROUP BY owner_id
),
findings AS (
    SELECT m.owner_id, count(*) AS open
    FROM quality_inconsistency AS i JOIN memories_memory AS m ON m.id = i.memory1_id
    WHERE i.status = 'open' GROUP BY m.owner_id
),
inserted AS (
    INSERT INTO quality_qualitysnapshot
        (owner_id, taken_at, total, average_quality, high_count, medium_count, low_count,
         boosted_count, open_inconsistencies, dimensions, run_id)
    SELECT s.owner_id, now(), s.total, s.average, s.high, s.medium, s.low, s.boosted,
           COALESCE(f.open, 0), s.dimensions, %(run)s
    FROM stats AS s LEFT JOIN findings AS f ON f.owner_id = s.owner_id
    RETURNING 1
)
SELECT count(*) FROM inserted
"""


def _tag_cases():
    """SQL CASE branches for the retention tags, most specific first (values are constants)."""
    return " ".join(f"WHEN '{tag}' = ANY(m.tags) THEN {days}" for tag, days in RETENTION_BY_TAG)


def threshold_sql(quality):
    """The days of inactivity a memory of quality `quality` (an SQL expression) is kept, as SQL
    and its parameters."""
    sql = (
        f"CASE WHEN {quality} >= %s THEN %s::float8 WHEN {quality} >= %s THEN %s::float8 "
        f"ELSE %s + ({quality} / %s) * (%s - %s) END"
    )
    low_min, low_max = settings.RETENTION_LOW_MIN_DAYS, settings.RETENTION_LOW_MAX_DAYS
    params = [HIGH, settings.RETENTION_HIGH_DAYS, MEDIUM, settings.RETENTION_MEDIUM_DAYS]
    return sql, [*params, low_min, MEDIUM, low_max, low_min]


def retention_threshold_days(quality):
    """Days of inactivity a memory of this quality is kept (the same SQL phase 4 uses)."""
    sql, params = threshold_sql("given.quality")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {sql} FROM (SELECT %s::float8 AS quality) AS given", [*params, quality])
        return cursor.fetchone()[0]


def _condition(sql, params):
    return RawSQL(sql, params, output_field=BooleanField())


def relevance_phase(run_id=None):
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            RELEVANCE_SQL.format(tag_cases=_tag_cases()),
            {
                **connection_params(),
                "type_days": json.dumps(RETENTION_BY_TYPE),
                "default_days": DEFAULT_RETENTION_DAYS,
                "protected_min": PROTECTED_MIN_RELEVANCE,
            },
        )
        scored, protected = cursor.fetchone()
    return {"scored": scored, "protected": protected}


def retention_phase(run_id=None):
    """Archive the memories inactive longer than their quality's threshold and, with
    MEMSITE_SUPERSEDED_RETENTION_DAYS, those superseded for longer than that; protected ones stay."""
    threshold, params = threshold_sql("quality_score")
    inactive = _condition(f"NOT {protected_sql()} AND {INACTIVE_DAYS} > {threshold}", params)
    reason = RawSQL(RETENTION_REASON.format(days=INACTIVE_DAYS, threshold=threshold), params)
    archived = archive_memories(Memory.objects.filter(inactive), reason)
    superseded = 0
    if settings.SUPERSEDED_RETENTION_DAYS:
        replaced = _condition(
            f"NOT {protected_sql()} AND valid_until < now() - make_interval(days => %s)",
            [settings.SUPERSEDED_RETENTION_DAYS],
        )
        superseded = archive_memories(Memory.objects.filter(replaced), RawSQL(SUPERSEDED_REASON, []))
    return {"archived": archived + superseded, "superseded": superseded}


def cleanup_phase(run_id=None):
    """Auto-cleanup (when MEMSITE_QUALITY_AUTO_CLEANUP is on), then one snapshot per owner."""
    with transaction.atomic(), connection.cursor() as cursor:
        cleaned = 0
        if settings.QUALITY_AUTO_CLEANUP:
            minimum = settings.QUALITY_MIN_THRESHOLD
            due = _condition(
                f"NOT {protected_sql()} AND {CLEANUP_DUE}", [minimum, settings.QUALITY_CLEANUP_GRACE_DAYS]
            )
            cleaned = archive_memories(Memory.objects.filter(due), RawSQL(CLEANUP_REASON, [minimum]))
        cursor.execute(SNAPSHOT_SQL, {"run": run_id})
        (snapshots,) = cursor.fetchone()
    return {
        "auto_cleanup_enabled": settings.QUALITY_AUTO_CLEANUP,
        "archived": cleaned,
        "snapshots": snapshots,
    }
