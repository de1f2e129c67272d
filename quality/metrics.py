"""The five quality dimensions of SPEC section 7, computed set-based in PostgreSQL.

Accuracy is the provenance confidence; completeness a sigmoid over the length in characters (plus
0.1 with user metadata); consistency grows with distinct corroborating sources and drops with open
contradictions; timeliness decays from the last content change or corroboration; relevance is the
cosine to a query when one is given, else the memory's importance. A memory another one has
replaced (its valid_until has passed) has timeliness 0; its consistency is not lowered for it:
being replaced is not being wrong.
"""

import json

from django.conf import settings
from django.db import connection

from quality.rules import boosted_score_sql

BASE_CONFIDENCE = {"bootstrapped": 0.95, "agent": 0.60, "tool_output": 0.50}
USER_INPUT_CONFIDENCE = {True: 0.90, False: 0.70}
DEFAULT_CONFIDENCE = 0.50
CORROBORATION_STEP = 0.05
CORROBORATION_CAP = 0.20
# Keys the service itself writes into `metadata`; they do not count as user metadata.
SYSTEM_METADATA_KEYS = [
    "quality_boost_applied",
    "quality_boost_date",
    "quality_boost_reason",
    "quality_boost_connection_count",
    "original_quality_before_boost",
    "relevance_factors",
]


# Factors below this count as zero. PostgreSQL raises an error rather than round a float8 product
# or exp() to zero, so a product of small factors could otherwise fail a statement for every row.
NEGLIGIBLE = 1e-12
# exp(-x) for x past this is below NEGLIGIBLE.
MAX_DECAY_EXPONENT = 27


def floor(expression):
    """SQL: `expression` (non-negative), with negligible values as exact zero."""
    return f"CASE WHEN ({expression}) < {NEGLIGIBLE} THEN 0 ELSE ({expression}) END"


def decay(exponent):
    """SQL: exp(-exponent) for a non-negative exponent, exact zero once negligible (never underflows)."""
    return f"CASE WHEN ({exponent}) > {MAX_DECAY_EXPONENT} THEN 0 ELSE exp(-({exponent})) END"


SCORED_SQL = f"""
WITH target AS MATERIALIZED (
    SELECT m.id,
           CASE
               WHEN m.source_type = 'user_input' AND m.is_explicit THEN %(explicit)s
               WHEN m.source_type = 'user_input' THEN %(implicit)s
               ELSE COALESCE((%(bases)s::jsonb ->> m.source_type)::float, %(default)s)
           END AS base,
           (SELECT count(DISTINCT s) FROM unnest(m.corroborating_sources) s) AS sources,
           char_length(m.content) AS length,
           (m.metadata - %(system_keys)s::text[]) <> '{{{{}}}}'::jsonb AS has_metadata,
           EXTRACT(EPOCH FROM (now() - m.provenance_updated_at)) / 86400.0 AS age_days,
           m.valid_until IS NOT NULL AND m.valid_until <= statement_timestamp() AS superseded,
           COALESCE((
               SELECT max(i.severity) FROM quality_inconsistency i
               WHERE i.type = 'contradiction' AND i.status = 'open'
                 AND (i.memory1_id = m.id OR i.memory2_id = m.id)
           ), 0) AS contradiction,
           CASE WHEN %(query)s::vector IS NULL THEN {floor("m.importance")}
                ELSE {floor("GREATEST(0, 1 - (m.embedding <=> %(query)s::vector))")} END AS relevance
    FROM memories_memory m
    WHERE ({{ids_filter}}) AND ({{owner_filter}})
),
dimensions AS MATERIALIZED (
    SELECT id,
           LEAST(1, base + LEAST(%(step)s * sources, %(cap)s)) AS accuracy,
           CASE WHEN length = 0 THEN 0
                ELSE LEAST(1, 1 / (1 + exp(-0.01 * (length - 200)))
                              + CASE WHEN has_metadata THEN 0.1 ELSE 0 END) END AS completeness,
           CASE WHEN sources = 0 THEN 0.3
                ELSE LEAST(1, 0.3 + 0.7 * log(sources + 1) / log(6)) END
               * (1 - 0.5 * contradiction) AS consistency,
           CASE WHEN superseded OR age_days > %(max_age)s THEN 0
                ELSE {decay("%(decay)s * GREATEST(age_days, 0)")} END AS timeliness,
           relevance
    FROM target
),
scored AS (
    SELECT d.*,
           %(w_accuracy)s * accuracy + %(w_completeness)s * completeness
           + %(w_consistency)s * consistency + %(w_timeliness)s * timeliness
           + %(w_relevance)s * relevance AS overall
    FROM dimensions d
)"""
EVALUATE_SQL = (
    SCORED_SQL
    + f"""
, updated AS (
    UPDATE memories_memory m SET
        confidence = s.accuracy,
        quality_accuracy = s.accuracy,
        quality_completeness = s.completeness,
        quality_consistency = s.consistency,
        quality_timeliness = s.timeliness,
        quality_relevance = s.relevance,
        quality_overall = LEAST(1, s.overall),
        quality_score = CASE
            WHEN m.quality_boost_applied
                THEN {boosted_score_sql("s.overall", "COALESCE(m.quality_boost_factor, 1)")}
            ELSE LEAST(1, s.overall) END,
        quality_evaluated_at = now(),
        low_quality_since = CASE WHEN s.overall < %(min_threshold)s
                                 THEN COALESCE(m.low_quality_since, now()) END
    FROM scored s
    WHERE m.id = s.id
    RETURNING m.id, s.accuracy, s.completeness, s.consistency, s.timeliness, s.relevance,
              LEAST(1, s.overall) AS overall
)
INSERT INTO quality_qualityassessment
    (memory_id, accuracy, completeness, consistency, timeliness, relevance, overall, weights,
     query, trigger, evaluated_at)
SELECT id, accuracy, completeness, consistency, timeliness, relevance, overall,
       %(weights)s::jsonb, %(query_text)s, %(trigger)s, now()
FROM updated
"""
)


# Live memories whose evaluation can differ from their last one although no write touched them since:
# never evaluated, timeliness still decaying (it stays 0 once it is 0), or changed afterwards. Every
# service write (store, edit, corroboration, findings) re-evaluates its memories at once.
MOVING = (
    "m.archived_at IS NULL AND (m.quality_evaluated_at IS NULL OR m.quality_timeliness > 0 "
    "OR GREATEST(m.updated_at, m.provenance_updated_at) > m.quality_evaluated_at)"
)


def evaluate_memories(
    memory_ids, trigger, query_embedding=None, owner=None, query_text="", moving_only=False
):
    """Re-evaluate memories in one statement and record a QualityAssessment for each.

    `memory_ids=None` evaluates every live memory (of `owner`, when given), or with `moving_only`
    only those whose quality can have moved with time (MOVING). With a query embedding, relevance
    is the cosine similarity to it. Returns the number evaluated.
    """
    sql, params = _statement(
        EVALUATE_SQL, memory_ids, trigger, query_embedding, owner, query_text, moving_only
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


QUERY_SCORES = """
SELECT id::text, accuracy, completeness, consistency, timeliness, relevance, LEAST(1, overall)
FROM scored ORDER BY id
"""
DIMENSIONS = ("accuracy", "completeness", "consistency", "timeliness", "relevance", "overall")


def query_scores(memory_ids, query_embedding, owner):
    """The evaluation of memories relative to a query (relevance = cosine similarity to it), as
    [{id, accuracy, …, overall}], computed by the same statement as `evaluate_memories` but only
    read: the stored scores do not change."""
    sql, params = _statement(SCORED_SQL + QUERY_SCORES, memory_ids, "", query_embedding, owner, "", False)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [
            {"id": row[0], **{name: round(value, 4) for name, value in zip(DIMENSIONS, row[1:], strict=True)}}
            for row in cursor.fetchall()
        ]


def _statement(template, memory_ids, trigger, query_embedding, owner, query_text, moving_only):
    weights = settings.QUALITY_WEIGHTS
    params = {
        "explicit": USER_INPUT_CONFIDENCE[True],
        "implicit": USER_INPUT_CONFIDENCE[False],
        "bases": json.dumps(BASE_CONFIDENCE),
        "default": DEFAULT_CONFIDENCE,
        "system_keys": SYSTEM_METADATA_KEYS,
        "query": None if query_embedding is None else str(list(map(float, query_embedding))),
        "step": CORROBORATION_STEP,
        "cap": CORROBORATION_CAP,
        "max_age": settings.QUALITY_MAX_AGE_DAYS,
        "decay": settings.QUALITY_TIMELINESS_DECAY,
        "min_threshold": settings.QUALITY_MIN_THRESHOLD,
        "weights": json.dumps(weights),
        "query_text": query_text[:2000],
        "trigger": trigger,
        "ids": None if memory_ids is None else [str(memory_id) for memory_id in memory_ids],
        "owner": getattr(owner, "pk", owner),
        **{f"w_{name}": value for name, value in weights.items()},
    }
    ids_filter = "m.archived_at IS NULL" if memory_ids is None else "m.id = ANY(%(ids)s::uuid[])"
    if moving_only:
        ids_filter = MOVING
    owner_filter = "TRUE" if owner is None else "m.owner_id = %(owner)s"
    return template.format(ids_filter=ids_filter, owner_filter=owner_filter), params


def reevaluate_superseded(sender, memory_ids, **kwargs):
    """Re-evaluate memories whose supersession changed (graph.signals): timeliness depends on it."""
    evaluate_memories(memory_ids, "supersession")
