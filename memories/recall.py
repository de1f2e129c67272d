"""Hybrid recall: vector and full-text candidates, fused and scored in one SQL statement.

Steps of `recall()`:
1. embed the query (outside the transaction);
2. one statement gathers candidates — the HNSW nearest neighbours (`RECALL_CANDIDATES`, iterative
   scan so owner and filters never starve it, bounded by `RECALL_HNSW_MAX_SCAN_TUPLES` so a
   selective filter cannot make it walk the whole index), the memories matching each query term (at most
   `per_term` per term, so a very common term costs no more than a rare one), and those matching
   all terms — then scores and orders them;
3. `expand_results()` adds graph neighbours of the seed results (the graph step; see there);
4. seeds and expanded results are ordered together, and the returned memories' access counters
   are updated in one UPDATE (skipped with `record_access=False`: the dashboard's recall explorer
   shows curators what an assistant would get back without counting it as an access).

final = w_vector·vector + w_keyword·keyword + w_relation·relation + w_tag·tag
        + w_importance·importance + w_confidence·confidence + w_recency·recency
        + w_context·context
with the weights of `settings.RECALL_WEIGHTS`.

keyword = the IDF-weighted share of the query's terms the memory contains. The IDF of a term is
ln(1 + 4·per_term / (df + ½)) with df its matches among the filtered memories, counted up to
`per_term` (the matches term_hits already fetched), so a name that appears in every other memory
counts less than a rare word.

context = max over the memory's PRECEDED_BY neighbours n (either direction; one step weighs 1,
two steps `CONTEXT_DECAY`) of step·(w_vector·vector(n) + w_keyword·keyword(n)), 0 without
neighbours: a turn of a conversation inherits the evidence of the turns next to it. Neighbours
count whatever the recall's filters, as long as they are the owner's and not archived.

On the LoCoMo development conversations (turn per memory, question as query) recall@5 was 0.416
with the vector alone, 0.569 with ts_rank_cd alone, 0.591 with vector + ½·ts_rank_cd +
½·IDF share, and 0.656 with vector + IDF share + context.
"""

import time
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from graph import queries as graph_queries
from memories import embeddings
from memories.models import CJK_CHARACTERS, SEARCH_CONFIG, Memory
from memsite.db import retry_on_conflict

COMPONENTS = ["vector", "keyword", "relation", "tag", "importance", "confidence", "recency", "context"]
RECENCY_DAYS = 180
MAX_QUERY_TERMS = 16
QUALITY_RANK_WEIGHT = 0.7
# The context of a memory two PRECEDED_BY steps away counts this much of one a step away.
CONTEXT_DECAY = 0.7


@dataclass
class RecallOptions:
    query: str = ""
    tags: list = field(default_factory=list)
    tag_mode: str = "any"
    tag_match: str = "exact"
    exclude_tags: list = field(default_factory=list)
    types: list = field(default_factory=list)
    start: datetime | None = None
    end: datetime | None = None
    limit: int = 5
    min_quality: float | None = None
    rank_by_quality: bool = False
    include_archived: bool = False
    expand_relations: bool = False
    expand_entities: bool = False
    relation_limit: int = 5
    expansion_limit: int = 25
    expand_min_strength: float = 0.0
    expand_min_importance: float = 0.0
    max_hops: int = 1


@dataclass
class RecallResult:
    memory: Memory
    score_components: dict
    final_score: float
    match_type: str
    relations: list = field(default_factory=list)
    rank_score: float | None = None


def _filters(options):
    """WHERE clauses over `m` shared by every candidate source."""
    clauses = ["m.owner_id = %(owner)s"]
    if not options.include_archived:
        clauses.append("m.archived_at IS NULL")
    if options.types:
        clauses.append("m.memory_type = ANY(%(types)s)")
    if options.start:
        clauses.append("m.created_at >= %(start)s")
    if options.end:
        clauses.append("m.created_at <= %(end)s")
    if options.min_quality is not None:
        clauses.append("m.quality_score >= %(min_quality)s")
    prefix = options.tag_match == "prefix"
    if options.exclude_tags:
        clauses.append(
            "NOT EXISTS (SELECT 1 FROM unnest(m.tags) t, unnest(%(exclude_tags)s::text[]) x "
            "WHERE starts_with(t, x))"
            if prefix
            else "NOT (m.tags && %(exclude_tags)s::varchar[])"
        )
    if options.tags:
        if prefix and options.tag_mode == "all":
            clauses.append(
                "NOT EXISTS (SELECT 1 FROM unnest(%(tags)s::text[]) q "
                "WHERE NOT EXISTS (SELECT 1 FROM unnest(m.tags) t WHERE starts_with(t, q)))"
            )
        elif prefix:
            clauses.append(
                "EXISTS (SELECT 1 FROM unnest(m.tags) t, unnest(%(tags)s::text[]) q WHERE starts_with(t, q))"
            )
        elif options.tag_mode == "all":
            clauses.append("m.tags @> %(tags)s::varchar[]")
        else:
            clauses.append("m.tags && %(tags)s::varchar[]")
    return " AND ".join(clauses)


def _tag_score(options):
    if not options.tags:
        return "0.0::float"
    match = "EXISTS (SELECT 1 FROM unnest(m.tags) t WHERE starts_with(t, q))"
    if options.tag_match != "prefix":
        match = "q = ANY(m.tags)"
    return f"(SELECT count(*) FROM unnest(%(tags)s::text[]) q WHERE {match})::float / %(tag_count)s"


# `base`, `scored` and `term_weights` are materialized: inlined, PostgreSQL would plan and evaluate the
# scoring expressions once per reference (final, rank_score, the selected columns).
QUOTED_LEXEME = "('''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || '''')"
RECENCY = (
    "LEAST(1, GREATEST(0, 1 - EXTRACT(EPOCH FROM (now() - m.created_at))::float / 86400 / %(recency_days)s))"
)
CONTEXT_COLUMNS = "m.importance, m.confidence, m.quality_score, m.quality_relevance, m.created_at"

QUERY_CANDIDATES = f"""
lexemes AS (
    SELECT {QUOTED_LEXEME} AS quoted
    FROM unnest(to_tsvector(%(config)s::regconfig, regexp_replace(%(query)s, %(cjk)s, ' \\1 ', 'g')))
    LIMIT %(max_terms)s
),
term_queries AS (
    SELECT array_to_string(array_agg(quoted), ' & ')::tsquery AS every_term
    FROM lexemes
),
vector_hits AS (
    SELECT m.id FROM memories_memory m WHERE {{filters}}
    ORDER BY m.embedding <=> %(vector)s::vector LIMIT %(candidates)s
),
term_hits AS (
    SELECT lexemes.quoted, hit.id FROM lexemes CROSS JOIN LATERAL (
        SELECT m.id FROM memories_memory m
        WHERE {{filters}} AND m.search_vector @@ lexemes.quoted::tsquery
        LIMIT %(per_term)s
    ) hit
),
every_term_hits AS (
    SELECT m.id FROM memories_memory m, term_queries tq
    WHERE {{filters}} AND m.search_vector @@ tq.every_term
    LIMIT %(per_term)s
),
term_weights AS MATERIALIZED (
    SELECT l.quoted::tsquery AS term, ln(1 + %(idf_scale)s / (count(h.id) + 0.5)) AS idf
    FROM lexemes l LEFT JOIN term_hits h ON h.quoted = l.quoted
    GROUP BY l.quoted
),
candidates AS (
    SELECT id FROM vector_hits UNION SELECT id FROM term_hits UNION SELECT id FROM every_term_hits
),
step_one AS (
    SELECT c.id AS of_id, a.target_id AS id, 1.0::float AS step FROM candidates c
    JOIN graph_association a ON a.source_id = c.id AND a.relation_type = 'PRECEDED_BY'
    UNION
    SELECT c.id, a.source_id, 1.0::float FROM candidates c
    JOIN graph_association a ON a.target_id = c.id AND a.relation_type = 'PRECEDED_BY'
),
step_two AS (
    SELECT x.of_id, a.target_id AS id, %(context_decay)s::float AS step FROM step_one x
    JOIN graph_association a ON a.source_id = x.id AND a.relation_type = 'PRECEDED_BY'
    WHERE a.target_id <> x.of_id
    UNION
    SELECT x.of_id, a.source_id, %(context_decay)s::float FROM step_one x
    JOIN graph_association a ON a.target_id = x.id AND a.relation_type = 'PRECEDED_BY'
    WHERE a.source_id <> x.of_id
),
neighbours AS (SELECT * FROM step_one UNION ALL SELECT * FROM step_two),
pool AS (SELECT id FROM candidates UNION SELECT id FROM neighbours),
base AS MATERIALIZED (
    SELECT m.id,
           GREATEST(0, 1 - (m.embedding <=> %(vector)s::vector)) AS vector,
           COALESCE((SELECT sum(w.idf) FILTER (WHERE m.search_vector @@ w.term) / sum(w.idf)
                     FROM term_weights w), 0)::float AS keyword,
           m.archived_at IS NULL AS live
    FROM pool p JOIN memories_memory m ON m.id = p.id
    WHERE m.owner_id = %(owner)s
),
context_scores AS (
    SELECT x.of_id AS id, max(x.step * (%(w_vector)s * n.vector + %(w_keyword)s * n.keyword)) AS context
    FROM neighbours x JOIN base n ON n.id = x.id AND n.live
    GROUP BY x.of_id
),
scored AS MATERIALIZED (
    SELECT b.id, b.vector, b.keyword, COALESCE(cs.context, 0)::float AS context,
           {{tag_score}} AS tag, {RECENCY} AS recency, {CONTEXT_COLUMNS}
    FROM candidates c JOIN base b ON b.id = c.id JOIN memories_memory m ON m.id = c.id
    LEFT JOIN context_scores cs ON cs.id = c.id
)"""

RECENT_CANDIDATES = f"""
candidates AS (
    SELECT m.id FROM memories_memory m WHERE {{filters}}
    ORDER BY m.created_at DESC LIMIT %(candidates)s
),
scored AS MATERIALIZED (
    SELECT m.id, 0.0::float AS vector, 0.0::float AS keyword, 0.0::float AS context,
           {{tag_score}} AS tag, {RECENCY} AS recency, {CONTEXT_COLUMNS}
    FROM candidates c JOIN memories_memory m ON m.id = c.id
)"""

RANKED = """,
fused AS (
    SELECT s.*, %(w_vector)s * s.vector + %(w_keyword)s * s.keyword + %(w_tag)s * s.tag
                + %(w_importance)s * s.importance + %(w_confidence)s * s.confidence
                + %(w_recency)s * s.recency + %(w_context)s * s.context AS final
    FROM scored s
),
ranked AS (
    SELECT r.*, {rank_score} AS rank_score FROM fused r
)
SELECT {columns}, r.vector, r.keyword, r.context, r.tag, r.recency, r.final, r.rank_score
FROM ranked r JOIN memories_memory m ON m.id = r.id
ORDER BY {order}
LIMIT %(limit)s
"""

MEMORY_COLUMNS = ", ".join(
    f"m.{f.column}" for f in Memory._meta.concrete_fields if f.name not in ("embedding", "search_vector")
)


def _rank_score(options):
    """rank_by_quality: 0.7·quality + 0.3·final; quality takes its relevance from the query."""
    if not options.rank_by_quality:
        return "r.final"
    quality = "r.quality_score"
    if options.query:
        quality = (
            "GREATEST(0, LEAST(1, r.quality_score + %(w_relevance)s * (r.vector - r.quality_relevance)))"
        )
    return f"{QUALITY_RANK_WEIGHT} * {quality} + {1 - QUALITY_RANK_WEIGHT} * LEAST(1, r.final)"


def _statement(options):
    template = QUERY_CANDIDATES if options.query else RECENT_CANDIDATES
    ctes = template.format(filters=_filters(options), tag_score=_tag_score(options))
    if options.rank_by_quality or options.query:
        order = "r.rank_score DESC, m.created_at DESC, m.id"
    else:
        order = "m.created_at DESC, m.id"
    ranked = RANKED.format(columns=MEMORY_COLUMNS, rank_score=_rank_score(options), order=order)
    return f"WITH {ctes}{ranked}"


def _params(user, options, vector):
    weights = settings.RECALL_WEIGHTS
    candidates = settings.RECALL_CANDIDATES
    per_term = max(10, candidates // 2)
    return {
        "owner": user.pk,
        "types": options.types,
        "start": options.start,
        "end": options.end,
        "min_quality": options.min_quality,
        "tags": options.tags,
        "tag_count": max(len(options.tags), 1),
        "exclude_tags": options.exclude_tags,
        "config": SEARCH_CONFIG,
        "query": options.query,
        "cjk": CJK_CHARACTERS,
        "max_terms": MAX_QUERY_TERMS,
        "vector": vector,
        "candidates": candidates,
        "per_term": per_term,
        "idf_scale": 4 * per_term,
        "recency_days": RECENCY_DAYS,
        "context_decay": CONTEXT_DECAY,
        "limit": options.limit,
        "w_relevance": settings.QUALITY_WEIGHTS["relevance"],
        **{f"w_{name}": value for name, value in weights.items()},
    }


def _match_type(options, vector, keyword):
    if options.query:
        weights = settings.RECALL_WEIGHTS
        return "keyword" if weights["keyword"] * keyword > weights["vector"] * vector else "vector"
    return "tag" if options.tags else "recency"


def _seed_results(user, options, vector):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT set_config('hnsw.ef_search', %s, true), "
            "set_config('hnsw.iterative_scan', 'relaxed_order', true), "
            "set_config('hnsw.max_scan_tuples', %s, true)",
            [str(settings.RECALL_HNSW_EF_SEARCH), str(settings.RECALL_HNSW_MAX_SCAN_TUPLES)],
        )
    rows = Memory.objects.raw(_statement(options), _params(user, options, vector))
    results = []
    for memory in rows:
        components = {
            "vector": memory.vector,
            "keyword": memory.keyword,
            "relation": 0.0,
            "tag": memory.tag,
            "importance": memory.importance,
            "confidence": memory.confidence,
            "recency": memory.recency,
            "context": memory.context,
        }
        result = RecallResult(
            memory=memory,
            score_components=components,
            final_score=memory.final,
            match_type=_match_type(options, memory.vector, memory.keyword),
            rank_score=memory.rank_score,
        )
        results.append(result)
    return results


def expand_results(user, seeds, options, vector=None):
    """The graph step: extra results reached from `seeds` over associations.

    Answers (expanded, expansion) where `expanded` is a list of RecallResult for memories not
    among the seeds — each with its `relation` component (Σ strength × related importance,
    capped at 1) filled in, its final score computed with the same weights, match_type
    "relation" or "entity", and `relations` describing the edges followed — and `expansion`
    is the summary object of the response. Seeds' own `relations` and relation component are
    filled in too. The traversal and scoring live in `graph.queries.expand_recall`.
    """
    return graph_queries.expand_recall(user, seeds, options, vector)


def final_score(components):
    """The weighted sum of the components (for results scored outside SQL)."""
    weights = settings.RECALL_WEIGHTS
    return sum(weights[name] * components[name] for name in COMPONENTS)


def rank_score(result, options):
    """The ordering score of a result (SQL computes it for seeds)."""
    if result.rank_score is not None:
        return result.rank_score
    if not options.rank_by_quality:
        return result.final_score
    return QUALITY_RANK_WEIGHT * result.memory.quality_score + (1 - QUALITY_RANK_WEIGHT) * min(
        1.0, result.final_score
    )


def _order(results, options):
    if options.query or options.rank_by_quality:
        return sorted(results, key=lambda r: rank_score(r, options), reverse=True)
    return sorted(results, key=lambda r: r.memory.created_at, reverse=True)


# The largest access_count the column holds: the count stops there instead of overflowing.
MAX_ACCESS_COUNT = 2147483647
# Rows are locked in id order, so concurrent recalls of overlapping memories queue instead of
# deadlocking.
TOUCH_SQL = """
UPDATE memories_memory AS m
SET last_accessed_at = %s, access_count = LEAST(m.access_count, %s) + 1
FROM (SELECT id FROM memories_memory WHERE id = ANY(%s::uuid[]) ORDER BY id FOR UPDATE) AS locked
WHERE m.id = locked.id
"""


@retry_on_conflict
def _touch(results):
    """Record the access of every returned memory in one UPDATE, after the read's transaction."""
    if not results:
        return
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(TOUCH_SQL, [now, MAX_ACCESS_COUNT - 1, [r.memory.pk for r in results]])
    for result in results:
        result.memory.last_accessed_at = now
        result.memory.access_count = min(result.memory.access_count, MAX_ACCESS_COUNT - 1) + 1


def recall(user, options, record_access=True):
    """Answers {"results": [RecallResult], "expansion": {...}, "query_time_ms": ms}.

    With `record_access=False` it is a read-only recall: nothing is written."""
    started = time.perf_counter()
    vector = embeddings.vector_literal(embeddings.embed(options.query)) if options.query else None
    with transaction.atomic():
        seeds = _seed_results(user, options, vector)
        expanded, expansion = expand_results(user, seeds, options, vector)
        results = _order(seeds + expanded, options)
    if record_access:
        _touch(results)
    return {
        "results": results,
        "expansion": expansion,
        "query_time_ms": round((time.perf_counter() - started) * 1000, 2),
    }
