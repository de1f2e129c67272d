"""Hybrid recall: vector and full-text candidates, fused and scored in one SQL statement.

One pipeline, every result scored the same way:
1. read the query's terms: their IDF weights and first matches (`QUERY_TERMS`), once for every
   scoring of the recall, while another thread embeds the query;
2. candidates — the HNSW nearest neighbours (`RECALL_CANDIDATES`, an iterative scan that passes
   over other owners' and filtered-out memories, bounded by `RECALL_HNSW_MAX_SCAN_TUPLES` so a
   selective filter cannot make it walk the whole index; when that leaves it with fewer than the
   recall's `limit`, the filtered memories ranked exactly), the memories matching each query term
   (at most `per_term` per term; none for a term the table's statistics call common, whose
   matches would be a bitmap of much of a large owner's memories), those matching all terms, and
   the memories next to any of these in the conversation (PRECEDED_BY either way) that pass the
   filters;
3. one statement scores them (the components below) and ranks them: these are the seeds;
4. with `expand_relations` / `expand_entities`, the graph step (`graph.queries.expansion`) returns
   the memories tagged with the query's entities and those reached over edges from the seeds,
   with the edges it followed — no scores; the same statement then scores the seeds and those
   memories together and ranks them once. Expanded memories skip the `tags` filter unless
   `expand_respect_tags`; every other filter applies to them;
5. the returned memories' accesses are queued on the primary (skipped with `record_access=False`);
   a worker adds them to the counters in batches (`services.record_access`).

Steps 2 to 4 only read, in one transaction on the database `memsite.replicas` chooses: a replica
when the caller may read from one, else the primary.

final = w_vector·vector + w_keyword·keyword + w_relation·relation + w_tag·tag
        + w_importance·importance + w_confidence·confidence + w_recency·recency
        + w_context·context + w_time·time + w_statement·statement + w_answer·answer
        − w_superseded·superseded − w_overtaken·overtaken
with the weights of `settings.RECALL_WEIGHTS`.

superseded = 1 for a memory another one had replaced by `valid_at` (or by now): its valid_until
has passed; without `valid_at`, the confidence of a replacement that waits for review (the
strongest open `superseded` finding naming it as the older memory, not between conversation
turns: `Memory.replacement_proposed`); 0 otherwise. Its weight is subtracted, so a replaced fact
ranks below the fact that replaced it when both match, a probably replaced one nearly so, and the
scores of current memories do not move. `valid_at` keeps only the memories valid at that moment
(a replacement still under review does not move them); `include_superseded=False` drops the
replaced ones. On the held-out labelled updates through the API (`bench.supersession_api`) the
newer fact came first for 0.789 of the questions before proposals counted and 0.842 after (0.86
once a lone note that opens with a label no longer read as a conversation turn).

overtaken = for a memory that newer ones on the same subject follow by less than w_overtaken, the
share of w_overtaken it gives up to rank just below the last of them (0 to 1; 0 for the others):
a newer memory overtakes when its embedding is at least `RECALL_OVERTAKEN_SIMILARITY` alike,
it was written an hour or more later and says that a value changed (`states_change`: "moved",
"now", "no longer", "现在" …). "Piet moved to Rotterdam in March" ranks above "My brother Piet
lives in Utrecht" for "Which city does Piet live in?" before anyone applied a supersession, and
the Utrecht memory moves down past it only. It looks among the best `OVERTAKEN_POOL` memories
and is 0 for every memory when the query asks when or names a date (it asks about a time, not
about what holds now). Conversation turns ("Speaker: …") neither overtake nor are overtaken: a
later turn on the same topic is more talk about it, not a new value (with them, LoCoMo's recall@5
fell from 0.726 to 0.567). On the labelled update pairs of bench/data/supersession that are no
chat turns (no supersession applied) the newer fact came first for 0.161 of the training sets'
update questions without it and 0.711 with 0.3 at similarity 0.4 (0.088 → 0.684 on the held-out
set), while the older memory of two that both hold still came first for 0.778 of the questions
it answers (0.907 without; 1.0 → 0.828 held out); LoCoMo's recall@5 stayed 0.726.

keyword = the IDF-weighted share of the query's terms the memory contains. The IDF of a term is
ln(1 + 4·per_term / (df + ½)) with df its matches among the filtered memories, counted up to
`per_term` (the matches term_hits already fetched), so a name that appears in every other memory
counts less than a rare word; a common term (`RECALL_COMMON_TERM_MATCHES`) counts as `per_term`.

context = max over the memory's PRECEDED_BY neighbours n (either direction; one step weighs 1,
two steps `RECALL_CONTEXT_DECAY`) of step·(w_vector·vector(n) + w_keyword·keyword(n)), 0 without
neighbours: a turn of a conversation inherits the evidence of the turns next to it. Neighbours
count whatever the recall's filters, as long as they are the owner's and not archived; those
read are the memories within two steps of a match (the neighbours of a matching memory, all of
them; of a candidate next to one, those no more than two steps from the match).

time = 1 for a memory whose time falls in the calendar day or month the query's text names ("on
8 May 2023", "May 8, 2023", "in May 2023"; `time_query.named_in`), e^(−d / TIME_DAYS) for one d
days outside it, 0 when the query names no date: "what did we decide on 3 March 2024?" favours
what happened that day without excluding the rest (a `time_query` range would exclude it).

statement = 0 for a memory whose content ends with a question mark (?, ？ or ؟), 1 otherwise: a
question that matches the query is evidence for the turns around it (its context passes on in
full) more than an answer itself.

answer = 1 for a memory that holds the kind of answer the query asks for, 0 otherwise
(`memories.answers`): a time ("… last week", "in May", "2023") when it asks when, a number when
it asks how many, how much, how long, how often, how old or how far; 0 for every memory when the
query asks for neither.

Whether a memory only asks and whether it holds a time or a number are stored with it
(`is_question`, `holds_time`, `holds_number`, generated from the content), so a recall reads
booleans instead of matching patterns against every memory it scores.

relation = Σ strength × importance × relevance of the memory at the other end, over the edges the
graph step followed from the memory to a seed of the expansion, capped at 1 (0 without expansion);
relevance is that memory's vector similarity to the query (1 without a query), so a link to a
memory the query is about counts more than a link to an unrelated one.

On the LoCoMo development conversations (turn per memory, question as query) recall@5 was 0.416
with the vector alone, 0.569 with ts_rank_cd alone, 0.591 with vector + ½·ts_rank_cd +
½·IDF share, 0.656 with 0.35·vector + 0.35·IDF share + 0.4·context (decay 0.7), and 0.675 with
0.25·vector + 0.35·IDF share + 0.6·context (decay 0.85), the weights chosen on half of the
conversations and confirmed on the other half; 0.1·time (the 79 of 760 questions that name a day
or month) raised it to 0.699, the conversation neighbours among the candidates to 0.709,
0.04·statement to 0.717 and 0.05·answer to 0.726. BM25 instead of the IDF share, rank fusion,
and pseudo-relevance feedback on either side did not help (bench/README.md).
"""

import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connections, transaction

from graph import queries as graph_queries
from memories import answers, changes, embeddings, services, time_query
from memories.models import CJK_CHARACTERS, SEARCH_CONFIG, Memory
from memsite import replicas

COMPONENTS = [
    "vector", "keyword", "relation", "tag", "importance", "confidence", "recency", "context", "time",
    "statement", "answer", "superseded", "overtaken",
]  # fmt: skip
RECENCY_DAYS = 180
TIME_DAYS = 3
MAX_QUERY_TERMS = 16
QUALITY_RANK_WEIGHT = 0.7
# Embeds recall queries while the database reads their terms (the provider encodes one text at a
# time per process anyway).
EMBEDDER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="recall-embedding")


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
    expand_respect_tags: bool = False
    valid_at: datetime | None = None
    include_superseded: bool = True
    sort: str = "score"


@dataclass
class RecallResult:
    memory: Memory
    score_components: dict
    final_score: float
    match_type: str
    relations: list = field(default_factory=list)
    rank_score: float | None = None


def _filters(options, with_tags=True):
    """WHERE clauses over `m` shared by every candidate source (`with_tags=False`: not the tags)."""
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
    if options.valid_at:
        clauses.append(
            "m.valid_from <= %(valid_at)s AND (m.valid_until IS NULL OR m.valid_until > %(valid_at)s)"
        )
    elif not options.include_superseded:
        clauses.append("(m.valid_until IS NULL OR m.valid_until > statement_timestamp())")
    prefix = options.tag_match == "prefix"
    if options.exclude_tags:
        clauses.append(
            "NOT EXISTS (SELECT 1 FROM unnest(m.tags) t, unnest(%(exclude_tags)s::text[]) x "
            "WHERE starts_with(t, x))"
            if prefix
            else "NOT (m.tags && %(exclude_tags)s::varchar[])"
        )
    if options.tags and with_tags:
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
TIME = (
    "CASE WHEN %(named_start)s::timestamptz IS NULL THEN 0.0 ELSE exp(-LEAST(50, GREATEST(0, "
    "EXTRACT(EPOCH FROM (%(named_start)s::timestamptz - m.created_at)), "
    "EXTRACT(EPOCH FROM (m.created_at - %(named_end)s::timestamptz)))::float / 86400 / %(time_days)s)) END"
)
# Whether the memory only asks, and whether it holds the kind of answer the query asks for
# (`answers`): stored with it.
STATEMENT = "CASE WHEN m.is_question THEN 0.0 ELSE 1.0 END::float"
ANSWER = (
    "CASE %(answer)s WHEN 'time' THEN m.holds_time WHEN 'number' THEN m.holds_number ELSE false END"
    "::int::float"
)
# Whether another memory had replaced this one by then (valid_at, or now): 1, its weight
# subtracted. In a recall of what holds now, a replacement that waits for review counts by its
# confidence (`replacement_proposed`, which the database keeps from the open `superseded` findings).
SUPERSEDED = (
    "CASE WHEN m.valid_until <= COALESCE(%(valid_at)s::timestamptz, statement_timestamp()) THEN 1.0 "
    "WHEN %(valid_at)s::timestamptz IS NULL THEN m.replacement_proposed ELSE 0.0 END::float"
)

# The query's terms, each with its IDF weight and its first matches (the filters decide the
# document frequencies): a statement of its own, run once per recall, whose answer both scorings
# of an expanded recall take. A term the table's statistics (ANALYZE) estimate in at least
# RECALL_COMMON_TERM_MATCHES memories is common: it is not searched for candidates of its own (its
# matches would be a bitmap of a large part of a large owner's memories, a recall's costliest
# step, to keep `per_term` arbitrary ones) and weighs as a term matching `per_term` memories, as
# its collection-wide frequency says.
QUERY_TERMS = f"""
WITH common_lexemes AS (
    SELECT c.elem FROM pg_stats s,
         unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS c(elem, share)
    WHERE s.schemaname = current_schema() AND s.tablename = 'memories_memory'
      AND s.attname = 'search_vector' AND c.elem IS NOT NULL  -- the last shares are summaries
      AND c.share * (SELECT reltuples FROM pg_class WHERE oid = 'memories_memory'::regclass)
          >= %(common_matches)s
),
lexemes AS (
    SELECT {QUOTED_LEXEME} AS quoted,
           lexeme IN (SELECT elem FROM common_lexemes) AS common
    FROM unnest(to_tsvector(%(config)s::regconfig, regexp_replace(%(query)s, %(cjk)s, ' \\1 ', 'g')))
    LIMIT %(max_terms)s
),
term_hits AS (
    SELECT lexemes.quoted, hit.id FROM lexemes CROSS JOIN LATERAL (
        SELECT m.id FROM memories_memory m
        WHERE {{filters}} AND m.search_vector @@ lexemes.quoted::tsquery
        LIMIT %(per_term)s
    ) hit
    WHERE NOT lexemes.common
)
SELECT l.quoted,
       ln(1 + %(idf_scale)s / (CASE WHEN l.common THEN %(per_term)s ELSE count(h.id) END + 0.5))::float
           AS idf,
       array_remove(array_agg(h.id), NULL) AS hits
FROM lexemes l LEFT JOIN term_hits h ON h.quoted = l.quoted
GROUP BY l.quoted, l.common
"""

# The memories next to `{of}.id` in the conversation (PRECEDED_BY either way) as `n.id`. Lateral,
# so each is an index lookup: a join would let the planner hash every PRECEDED_BY edge of the table.
NEXT_TO = """CROSS JOIN LATERAL (
    SELECT a.target_id AS id FROM graph_association a
    WHERE a.source_id = {of}.id AND a.relation_type = 'PRECEDED_BY'
    UNION ALL
    SELECT a.source_id FROM graph_association a
    WHERE a.target_id = {of}.id AND a.relation_type = 'PRECEDED_BY'
) n"""

# The query's terms and weights (QUERY_TERMS), in every statement that scores a query.
TERM_WEIGHTS = """
term_weights AS MATERIALIZED (
    SELECT t.term::tsquery AS term, t.idf FROM jsonb_to_recordset(%(terms)s::jsonb) AS t(term text, idf float)
),"""

# Memories gathered for a query: HNSW neighbours, per-term and all-terms full-text matches. The
# memories next to these in the conversation join them as candidates when they pass the filters
# (SCORED_BY_QUERY): the reply to a matching question often answers it. When the index search
# finds fewer than the recall's `limit` (or `candidates`, if fewer) because the filtered memories
# lie beyond the entries it may visit (tags whose memories are far from the query, a small owner
# among many), the filtered memories are ranked exactly instead (`embeddings.exact_distance`).
# Short of `candidates` but not of `limit`, it has found the nearest: the rest lie further out.
GATHERED_BY_QUERY = """
vector_hits AS MATERIALIZED (
    SELECT m.id FROM memories_memory m WHERE {filters}
    ORDER BY m.embedding <=> %(vector)s::vector LIMIT %(candidates)s
),
exact_hits AS (
    SELECT m.id FROM memories_memory m
    WHERE {filters} AND (SELECT count(*) FROM vector_hits) < LEAST(%(limit)s, %(candidates)s)
    ORDER BY {exact_distance} LIMIT %(candidates)s
),
every_term_hits AS (
    SELECT m.id FROM memories_memory m
    WHERE {filters} AND m.search_vector @@ (SELECT string_agg(term::text, ' & ')::tsquery FROM term_weights)
    LIMIT %(per_term)s
),
matched AS MATERIALIZED (
    SELECT id FROM vector_hits UNION SELECT id FROM exact_hits UNION SELECT unnest(%(term_hits)s::uuid[])
    UNION SELECT id FROM every_term_hits
),"""
# Memories gathered without a query: the newest (or, sorted by time ascending, the oldest).
GATHERED_BY_TIME = """
matched AS (
    SELECT m.id FROM memories_memory m WHERE {filters}
    ORDER BY m.created_at {direction}, m.sequence {direction} LIMIT %(candidates)s
),"""
# Memories given: the seeds and the memories the graph step reached from them.
GIVEN = """
matched AS MATERIALIZED (
    SELECT m.id FROM memories_memory m
    WHERE m.id = ANY(%(ids)s::uuid[]) AND {filters}
      AND (m.id = ANY(%(kept)s::uuid[]) OR m.importance >= %(expand_min_importance)s)
),"""

# relation = Σ strength × importance × relevance of the memory at the other end, over the followed
# edges from the memory to a seed of the expansion (a direct match or an entity memory), capped
# at 1; relevance is that memory's vector similarity to the query (1 without a query). Without
# expansion no edges are followed.
RELATION = """
relation_scores AS (
    SELECT e.id, LEAST(1, sum(e.strength * o.importance * {relevance}))::float AS relation
    FROM jsonb_to_recordset(%(edges)s::jsonb) AS e(id uuid, other uuid, strength float)
    JOIN candidates c ON c.id = e.other JOIN {others} o ON o.id = e.other
    WHERE e.other = ANY(%(kept)s::uuid[])
    GROUP BY e.id
),"""

# Every component but context and relation, of the memory `m`.
COMPONENTS_OF_M = f"""{{tag_score}} AS tag, {RECENCY} AS recency, {{time}} AS time, {STATEMENT} AS statement,
           {ANSWER} AS answer, {SUPERSEDED} AS superseded, m.importance, m.confidence, m.quality_score,
           m.quality_relevance, m.created_at, m.sequence"""

# The conversation around the matched memories, each edge looked up once from the memory it
# leaves: the matches' edges, then those of the `ring` one step from a match (with
# `ring_candidates`, the ring's memories that pass the filters are candidates too). Every memory
# within two steps of a match is read once, in `base`; a ring candidate's context reaches no
# further (on the LoCoMo dev conversations that changed no recall@5).
SCORED_BY_QUERY = f"""
step_one AS MATERIALIZED (
    SELECT x.id AS of_id, n.id FROM matched x {NEXT_TO.format(of="x")}
),
ring AS MATERIALIZED (
    SELECT DISTINCT id FROM step_one WHERE id NOT IN (SELECT id FROM matched)
),
step_two AS MATERIALIZED (
    SELECT x.id AS of_id, n.id FROM ring x {NEXT_TO.format(of="x")}
),
edges AS MATERIALIZED (SELECT * FROM step_one UNION ALL SELECT * FROM step_two),
base AS MATERIALIZED (
    SELECT m.id, ({{filters}}) AS eligible, m.archived_at IS NULL AS live,
           GREATEST(0, 1 - (m.embedding <=> %(vector)s::vector)) AS vector,
           COALESCE((SELECT sum(w.idf) FILTER (WHERE m.search_vector @@ w.term) / sum(w.idf)
                     FROM term_weights w), 0)::float AS keyword,
           {COMPONENTS_OF_M}
    FROM memories_memory m
    WHERE m.id = ANY(ARRAY(SELECT id FROM matched UNION SELECT id FROM edges)) AND m.owner_id = %(owner)s
),
candidates AS MATERIALIZED (  -- term matches were found by the statement before, so filtered again
    SELECT b.id FROM base b
    WHERE b.eligible
      AND (b.id IN (SELECT id FROM matched) OR (%(ring_candidates)s AND b.id IN (SELECT id FROM ring)))
),
neighbours AS (
    SELECT e.of_id, e.id, 1.0::float AS step FROM edges e WHERE e.of_id IN (SELECT id FROM candidates)
    UNION ALL
    SELECT x.of_id, y.id, %(context_decay)s::float FROM edges x JOIN edges y ON y.of_id = x.id
    WHERE x.of_id IN (SELECT id FROM candidates) AND y.id <> x.of_id
),
context_scores AS (
    SELECT x.of_id AS id, max(x.step * (%(w_vector)s * n.vector + %(w_keyword)s * n.keyword)) AS context
    FROM neighbours x JOIN base n ON n.id = x.id AND n.live
    GROUP BY x.of_id
),{{relation}}
scored AS MATERIALIZED (
    SELECT b.*, COALESCE(cs.context, 0)::float AS context, COALESCE(rs.relation, 0)::float AS relation
    FROM candidates c JOIN base b ON b.id = c.id
    LEFT JOIN context_scores cs ON cs.id = c.id
    LEFT JOIN relation_scores rs ON rs.id = c.id
)"""

SCORED_WITHOUT_QUERY = f"""
candidates AS (SELECT id FROM matched),{{relation}}
scored AS MATERIALIZED (
    SELECT m.id, 0.0::float AS vector, 0.0::float AS keyword, 0.0::float AS context,
           COALESCE(rs.relation, 0)::float AS relation, {COMPONENTS_OF_M}
    FROM candidates c JOIN memories_memory m ON m.id = c.id
    LEFT JOIN relation_scores rs ON rs.id = c.id
)"""

RANKED = """,
fused AS (
    SELECT s.*, %(w_vector)s * s.vector + %(w_keyword)s * s.keyword + %(w_relation)s * s.relation
                + %(w_tag)s * s.tag + %(w_importance)s * s.importance + %(w_confidence)s * s.confidence
                + %(w_recency)s * s.recency + %(w_context)s * s.context + %(w_time)s * s.time
                + %(w_statement)s * s.statement + %(w_answer)s * s.answer
                - %(w_superseded)s * s.superseded AS fused
    FROM scored s
),{overtaken}
settled AS (
    SELECT f.*, {overtaken_value} AS overtaken, f.fused - %(w_overtaken)s * {overtaken_value} AS final
    FROM fused f{overtaken_join}
),
ranked AS (
    SELECT r.*, {rank_score} AS rank_score FROM settled r
),
top AS (
    SELECT r.* FROM ranked r ORDER BY {rank_order} LIMIT %(limit)s
)
SELECT {columns}, r.vector, r.keyword, r.relation, r.context, r.tag, r.recency, r.time, r.statement,
       r.answer, r.superseded, r.overtaken, r.final, r.rank_score
FROM top r JOIN memories_memory m ON m.id = r.id
ORDER BY {order}
"""

# overtaken, for a memory that newer ones on the same subject (embeddings within
# `overtaken_distance`), written at least `OVERTAKEN_GAP` later and saying that a value changed
# (`states_change`), follow by less than w_overtaken among the `OVERTAKEN_POOL` best: the share of
# w_overtaken it gives up to rank just below the last of them. Of memories that answer alike, the
# one that says the value changed holds what is true now; the older one moves down only past it.
# Conversation turns ("Speaker: …", `changes.TURN_SQL`) neither overtake nor are overtaken. A
# fixed pool, so a result's score does not depend on the limit asked for.
OVERTAKEN = """
leaders AS MATERIALIZED (
    SELECT f.id, f.fused, f.created_at, m.states_change, m.embedding, m.content ~ %(turn)s AS turn
    FROM fused f JOIN memories_memory m ON m.id = f.id
    ORDER BY f.fused DESC LIMIT %(overtaken_pool)s
),
overtaken_scores AS (
    SELECT a.id, LEAST(1, (a.fused - min(b.fused) + 1e-6) / %(w_overtaken)s) AS overtaken
    FROM leaders a JOIN leaders b
      ON b.states_change AND NOT (a.turn OR b.turn) AND b.created_at >= a.created_at + %(overtaken_gap)s
     AND b.fused <= a.fused AND b.fused > a.fused - %(w_overtaken)s
     AND (b.embedding <=> a.embedding) <= %(overtaken_distance)s
    GROUP BY a.id, a.fused
),"""
OVERTAKEN_POOL = 20
OVERTAKEN_GAP = timedelta(hours=1)

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


def _orders(options):
    """(which results make the cut, how they are listed): by score unless `sort` asks for time."""
    newest = "r.created_at DESC, r.sequence DESC"
    by_score = f"r.rank_score DESC, {newest}" if options.query or options.rank_by_quality else newest
    listed = {
        "score": by_score,
        "time_desc": newest,
        "time_asc": "r.created_at ASC, r.sequence ASC",
    }[options.sort]
    return (by_score if options.query or options.rank_by_quality else listed), listed


def _statement(options, given, overtaking):
    """The one recall statement: memories gathered (or `given` by the graph step) → candidates →
    scores → ranking (with `overtaking`, the `overtaken` component)."""
    filters = _filters(options, with_tags=not given or options.expand_respect_tags)
    if given:
        matched = GIVEN.format(filters=filters)
    elif options.query:
        matched = GATHERED_BY_QUERY.format(
            filters=filters, exact_distance=embeddings.exact_distance("m.embedding", "%(vector)s::vector")
        )
    else:
        direction = "ASC" if options.sort == "time_asc" else "DESC"
        matched = GATHERED_BY_TIME.format(filters=filters, direction=direction)
    rank_order, order = _orders(options)
    ranked = RANKED.format(
        columns=MEMORY_COLUMNS,
        rank_score=_rank_score(options),
        rank_order=rank_order,
        order=order,
        overtaken=OVERTAKEN if overtaking else "",
        overtaken_value="COALESCE(o.overtaken, 0)::float" if overtaking else "0.0::float",
        overtaken_join=" LEFT JOIN overtaken_scores o ON o.id = f.id" if overtaking else "",
    )
    if options.query:
        terms = TERM_WEIGHTS
        relation = RELATION.format(relevance="o.vector", others="base")
        scored = SCORED_BY_QUERY.format(
            filters=filters, relation=relation, tag_score=_tag_score(options), time=TIME
        )
    else:
        terms = ""
        relation = RELATION.format(relevance="1.0", others="memories_memory")
        scored = SCORED_WITHOUT_QUERY.format(
            relation=relation, tag_score=_tag_score(options), time="0.0::float"
        )
    return f"WITH {terms}{matched}{scored}{ranked}"


@dataclass
class Query:
    """What the query brings to every scoring of one recall: its vector, its terms (`QUERY_TERMS`)
    with their IDF weights, the memories the terms matched, the day or month its text names, and
    the kind of answer it asks for."""

    vector: str | None = None
    terms: list = field(default_factory=list)
    term_hits: list = field(default_factory=list)
    named: tuple = (None, None)
    answer: str | None = None


def _query(alias, user, options):
    """The query's vector, its named day or month, the answer it asks for, and its terms, read on
    database `alias`; the vector is embedded on `EMBEDDER`'s thread while the terms are read."""
    query = Query()
    if not options.query:
        return query
    embedding = EMBEDDER.submit(embeddings.embed_query, options.query)
    query.named = time_query.named_in(options.query) or query.named
    query.answer = answers.asked_for(options.query)
    with connections[alias].cursor() as cursor:
        cursor.execute(QUERY_TERMS.format(filters=_filters(options)), _params(user, options, query))
        for term, idf, hits in cursor.fetchall():
            query.terms.append({"term": term, "idf": idf})
            query.term_hits.extend(hits)
    query.vector = embeddings.vector_literal(embedding.result())
    return query


def _params(user, options, query, given=None):
    weights = settings.RECALL_WEIGHTS
    candidates = settings.RECALL_CANDIDATES
    per_term = max(10, candidates // 2)
    given = given or Given()
    return {
        "owner": user.pk,
        "types": options.types,
        "start": options.start,
        "end": options.end,
        "min_quality": options.min_quality,
        "valid_at": options.valid_at,
        "tags": options.tags,
        "tag_count": max(len(options.tags), 1),
        "exclude_tags": options.exclude_tags,
        "config": SEARCH_CONFIG,
        "query": options.query,
        "cjk": CJK_CHARACTERS,
        "max_terms": MAX_QUERY_TERMS,
        "vector": query.vector,
        "terms": json.dumps(query.terms),
        "term_hits": query.term_hits,
        "candidates": candidates,
        "per_term": per_term,
        "idf_scale": 4 * per_term,
        "common_matches": settings.RECALL_COMMON_TERM_MATCHES,
        "recency_days": RECENCY_DAYS,
        "named_start": query.named[0],
        "named_end": query.named[1],
        "time_days": TIME_DAYS,
        "answer": query.answer,
        "context_decay": settings.RECALL_CONTEXT_DECAY,
        "overtaken_pool": OVERTAKEN_POOL,
        "overtaken_gap": OVERTAKEN_GAP,
        "turn": changes.TURN_SQL,
        "overtaken_distance": 1 - settings.RECALL_OVERTAKEN_SIMILARITY,
        "ring_candidates": not given.ids,
        "limit": options.limit + (options.expansion_limit if given.ids else 0),
        "ids": given.ids,
        "kept": given.kept,
        "expand_min_importance": options.expand_min_importance,
        "edges": json.dumps(given.edge_rows()),
        "w_relevance": settings.QUALITY_WEIGHTS["relevance"],
        **{f"w_{name}": value for name, value in weights.items()},
    }


@dataclass
class Given:
    """What the graph step hands to scoring: candidate ids, the ids exempt from
    `expand_min_importance` (seeds, entity memories) and the edges followed."""

    ids: list = field(default_factory=list)
    kept: list = field(default_factory=list)
    edges: list = field(default_factory=list)

    def edge_rows(self):
        """Each edge once from each end: {id, other, strength}."""
        return [
            row
            for edge in self.edges
            for row in (
                {"id": edge.source, "other": edge.target, "strength": edge.strength},
                {"id": edge.target, "other": edge.source, "strength": edge.strength},
            )
        ]


def _match_type(options, memory, seeds, entities):
    memory_id = str(memory.pk)
    if memory_id in seeds or not seeds:
        if options.query:
            weights = settings.RECALL_WEIGHTS
            keyword_wins = weights["keyword"] * memory.keyword > weights["vector"] * memory.vector
            return "keyword" if keyword_wins else "vector"
        return "tag" if options.tags else "recency"
    return "entity" if memory_id in entities else "relation"


def _score(alias, user, options, query, given=None, seeds=(), entities=()):
    """Run the recall statement on database `alias`; answers RecallResult in ranking order."""
    overtaking = (
        settings.RECALL_WEIGHTS["overtaken"] > 0 and query.vector is not None
        and query.answer != "time" and query.named[0] is None
    )
    statement, params = _statement(options, bool(given), overtaking), _params(user, options, query, given)
    rows = Memory.objects.using(alias).raw(statement, params)
    results = []
    for memory in rows:
        components = {name: getattr(memory, name) for name in COMPONENTS}
        results.append(
            RecallResult(
                memory=memory,
                score_components=components,
                final_score=memory.final,
                match_type=_match_type(options, memory, seeds, entities),
                rank_score=memory.rank_score,
            )
        )
    return results


def _within_expansion_limit(results, seeds, expansion_limit):
    """The ranked results with at most `expansion_limit` memories that expansion added: the answer
    holds at most `limit` direct matches and `expansion_limit` expanded memories, in one ranking."""
    kept, expanded = [], 0
    for result in results:
        if str(result.memory.pk) not in seeds:
            expanded += 1
            if expanded > expansion_limit:
                continue
        kept.append(result)
    return kept


def _relations(results, edges):
    """Each result's followed edges to another returned result."""
    returned = {str(result.memory.pk) for result in results}
    edges = [edge for edge in edges if {edge.source, edge.target} <= returned]
    associations = graph_queries.described(edges)
    for result in results:
        memory_id = str(result.memory.pk)
        result.relations = [
            edge.seen_from(memory_id, associations[edge.key])
            for edge in edges
            if memory_id in (edge.source, edge.target) and edge.key in associations
        ]


def _expansion_summary(options, seeds, entities=(), expanded=0, edges=()):
    return {
        "enabled": options.expand_relations,
        "expand_entities": options.expand_entities,
        "expand_respect_tags": options.expand_respect_tags,
        "seed_count": len(seeds),
        "entity_count": len(entities),
        "expanded_count": expanded,
        "edges_followed": len(edges),
        "relation_limit": options.relation_limit,
        "expansion_limit": options.expansion_limit,
        "max_hops": options.max_hops,
        "min_strength": options.expand_min_strength,
        "min_importance": options.expand_min_importance,
    }


def recall(user, options, record_access=True):
    """Answers {"results": [RecallResult], "expansion": {...}, "query_time_ms": ms}.

    With `record_access=False` it is a read-only recall (the dashboard's recall explorer shows
    curators what an assistant would get back without counting it as an access): nothing is written.

    Seeds come from the gathered candidates. With expansion, the graph step (`graph.queries.expansion`)
    reaches further memories from the seeds, and the same statement scores and ranks the seeds and
    those memories together (not needed when the graph step found no edge and no entity memory).
    """
    started = time.perf_counter()
    alias = replicas.current_alias()
    with transaction.atomic(using=alias):
        with connections[alias].cursor() as cursor:
            # Neither parallel workers nor JIT compilation: the exact search's estimated cost (all
            # of a large owner's memories) would buy both for every recall, started before its
            # condition is read and mostly for nothing (80 and 200 ms measured at 100,000).
            cursor.execute(
                "SELECT set_config('hnsw.ef_search', %s, true), "
                "set_config('hnsw.iterative_scan', 'relaxed_order', true), "
                "set_config('hnsw.max_scan_tuples', %s, true), "
                "set_config('max_parallel_workers_per_gather', '0', true), set_config('jit', 'off', true)",
                [str(settings.RECALL_HNSW_EF_SEARCH), str(settings.RECALL_HNSW_MAX_SCAN_TUPLES)],
            )
        query = _query(alias, user, options)
        results = _score(alias, user, options, query)
        summary = _expansion_summary(options, results)
        if (options.expand_relations or options.expand_entities) and results:
            seeds = [str(result.memory.pk) for result in results]
            edges, entities, reached = graph_queries.expansion(user.pk, seeds, options)
            expanded = 0
            if edges or entities:
                given = Given(ids=[*seeds, *entities, *reached], kept=[*seeds, *entities], edges=edges)
                results = _score(alias, user, options, query, given, set(seeds), set(entities))
                results = _within_expansion_limit(results, set(seeds), options.expansion_limit)
                _relations(results, edges)
                expanded = sum(1 for result in results if result.match_type in ("entity", "relation"))
            summary = _expansion_summary(options, seeds, entities, expanded, edges)
    if record_access:
        services.record_access([result.memory for result in results])
    return {
        "results": results,
        "expansion": summary,
        "query_time_ms": round((time.perf_counter() - started) * 1000, 2),
    }
