"""Inconsistency detection (SPEC section 7): set-based SQL, candidate pairs from HNSW neighbours.

Each live memory asks the HNSW index for its `DETECT_NEIGHBOURS` nearest live memories of the
same owner (a LATERAL join over a chunk of memories at a time, run by parallel workers; never all
pairs); in an owner of at most `neighbours.EXACT_UP_TO` live memories it compares itself with
each of them. Those pairs, the pairs with equal normalized content (same `content_hash`) and every
CONTRADICTS association become candidates; the findings are then derived from the candidates in
one statement (severities rounded to four decimals):

- duplicate: equal content, or cosine ≥ `DETECT_DUPLICATE_MIN_COSINE` with the same negation
  polarity unless the relation model read the pair as conflicting (`judging.CONFLICT_RELATION`);
  severity = similarity.
- contradiction: a CONTRADICTS edge, or cosine ≥ `DETECT_CONTRADICTION_MIN_COSINE` with differing
  negation polarity unless the relation model read the pair as the same fact
  (`judging.SAME_RELATION`); severity = min(1, 0.5 + 0.3·mean(confidence) + 0.2·similarity).
- the judge's verdicts on each memory and its older neighbours (`quality.supersession`):
  duplicates and contradictions it reads, and replacements (`superseded`); severity its confidence.
- outdated: `provenance_updated_at` older than `DETECT_OUTDATED_DAYS`; severity min(1, age/365).
- low_confidence: confidence below `DETECT_LOW_CONFIDENCE`; severity 1 − confidence.

Negation polarity is whether the text holds a negation cue: an English cue between word
boundaries (`\\m...\\M`, so "not" never matches "nothing" or "notably"), or a Chinese cue.

Findings are upserted on the unique (type, memory1, memory2), the pair ordered canonically
(memory1 < memory2); a finding whose severity and description are unchanged is not rewritten.
Re-running is idempotent and keeps reviewers' decisions:
- a dismissed finding stays dismissed, whatever happens;
- a resolved finding stays resolved, unless one of its memories changed (content or provenance)
  after the resolution and the condition still holds: then it is reopened;
- an open finding the run no longer finds (content edited, memory archived, thresholds changed)
  is resolved with resolution `no_longer_detected`, and reopens if a later run finds it again;
  a finding a reviewer reclassified stays open while both memories are live.
Memories whose open contradictions changed are re-evaluated, since consistency depends on them.

With `changed_since`, detection is incremental: only the memories entered, edited or corroborated
after that moment search their neighbours (among all live memories of their owner), join the
equal-content and CONTRADICTS candidates and are checked for low confidence; the outdated rule
checks those and the memories that crossed its age since then. Only open findings that involve such
a memory, or an archived one, can be resolved as no longer detected. A full run (no
`changed_since`) refreshes the rest: severities that grow with age, edges removed meanwhile.
"""

import time
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connection, transaction

from quality import neighbours, supersession
from quality.facts import judging
from quality.findings import STALE_RESOLUTION, UPSERT_RULE, excerpt_sql
from quality.metrics import evaluate_memories
from quality.models import Inconsistency, Trigger

ENGLISH_CUES = [
    "not",
    "no",
    "never",
    "cannot",
    "can't",
    "isn't",
    "aren't",
    "wasn't",
    "doesn't",
    "don't",
    "didn't",
    "won't",
    "no longer",
]
CHINESE_CUES = ["没有", "不是", "不会", "不能", "不", "没"]
CHUNK_SIZE = 5000


def _english_pattern():
    words = [cue.replace("'", "['’]").replace(" ", r"\s+") for cue in ENGLISH_CUES]
    return r"\m(" + "|".join(words) + r")\M"


NEGATION_EN = _english_pattern()
# Chinese has no word boundaries: any cue character sequence counts.
NEGATION_ZH = "(" + "|".join(CHINESE_CUES) + ")"


def negated_sql(alias):
    """SQL boolean: the memory `alias` holds a negation cue."""
    return f"({alias}.content ~* %(neg_en)s OR {alias}.content ~ %(neg_zh)s)"


def scope(alias):
    """SQL boolean: the memory `alias` is live and of the run's owner (any owner when None)."""
    return f"{alias}.archived_at IS NULL AND (%(owner)s::integer IS NULL OR {alias}.owner_id = %(owner)s)"


SCOPE = scope("m")


def changed(alias):
    """SQL boolean: the memory `alias` entered the store, or its content or provenance changed,
    after `changed_since` (always true in a full run)."""
    return (
        f"(%(since)s::timestamptz IS NULL OR GREATEST({alias}.entered_at, {alias}.updated_at, "
        f"{alias}.provenance_updated_at) > %(since)s::timestamptz)"
    )


def searched(alias):
    """SQL boolean: the memory `alias` is in scope and searches its neighbours in this run."""
    return f"{scope(alias)} AND {changed(alias)}"


SEARCHED = searched("m")

CREATE_CANDIDATES = """
CREATE TEMPORARY TABLE detect_candidate (
    memory1 uuid NOT NULL, memory2 uuid NOT NULL, similarity float8 NOT NULL,
    equal_content boolean NOT NULL DEFAULT false, linked boolean NOT NULL DEFAULT false
) ON COMMIT DROP
"""

# Negation polarity once per candidate memory, not once per candidate pair.
CREATE_POLARITY = f"""
CREATE TEMPORARY TABLE detect_polarity ON COMMIT DROP AS
SELECT m.id, {negated_sql("m")} AS negated FROM memories_memory m
WHERE {SCOPE} AND m.id IN (SELECT memory1 FROM detect_candidate UNION SELECT memory2 FROM detect_candidate)
"""

# One chunk of memories (a hash slice) searches its neighbours; kept pairs reach the lower of
# the two thresholds. CREATE TABLE AS may run in parallel where INSERT ... SELECT may not.
NEIGHBOUR_CHUNK = f"""
CREATE TEMPORARY TABLE detect_chunk ON COMMIT DROP AS
SELECT LEAST(m.id, n.id) AS memory1, GREATEST(m.id, n.id) AS memory2, 1 - n.distance AS similarity
FROM memories_memory m
CROSS JOIN LATERAL {neighbours.searched("m", "%(neighbours)s")} n
WHERE {SEARCHED} AND (hashtext(m.id::text) & 2147483647) %% %(chunks)s = %(chunk)s
  AND 1 - n.distance >= %(min_cosine)s
"""

EQUAL_CONTENT_CANDIDATES = f"""
INSERT INTO detect_candidate (memory1, memory2, similarity, equal_content)
SELECT first_id, id, 1, true FROM (
    SELECT m.id, first_value(m.id) OVER (PARTITION BY m.owner_id, m.content_hash ORDER BY m.id) AS first_id
    FROM memories_memory m WHERE {SCOPE}
      AND (%(since)s::timestamptz IS NULL OR (m.owner_id, m.content_hash) IN (
          SELECT c.owner_id, c.content_hash FROM memories_memory c
          WHERE c.archived_at IS NULL AND {changed("c")}))
) grouped
WHERE id <> first_id
"""

LINKED_CANDIDATES = f"""
INSERT INTO detect_candidate (memory1, memory2, similarity, linked)
SELECT LEAST(m.id, o.id), GREATEST(m.id, o.id), GREATEST(0, 1 - (m.embedding <=> o.embedding)), true
FROM graph_association a
JOIN memories_memory m ON m.id = a.source_id
JOIN memories_memory o ON o.id = a.target_id
WHERE a.relation_type = 'CONTRADICTS' AND o.archived_at IS NULL AND {SCOPE}
  AND ({changed("m")} OR {changed("o")} OR a.updated_at > %(since)s::timestamptz)
"""

# Whether the negated memory `neg` negates something the other memory `other` says: one of the
# words its negation applies to (its reading's negated terms) stands in the other's text. "The user
# is not online" negates "online"; "The report is not ready" negates nothing "The report is still
# unfinished" says, so they do not contradict. Without a reading, the polarity alone decides.
NEGATES = """(
    {neg}_r.reading IS NULL OR EXISTS (
        SELECT 1 FROM jsonb_array_elements_text({neg}_r.reading -> 'negated_terms') t
        WHERE CASE WHEN t ~ '[\\u3400-\\u9fff]' THEN position(t IN {other}.content) > 0
                   ELSE {other}.content
                        ~* ('\\m' || regexp_replace(t, '([^[:alnum:][:space:]])', '\\\\\\1', 'g')
                            || '\\M') END
    )
)"""

UPSERT_FINDINGS = f"""
WITH pair AS (
    SELECT memory1, memory2, max(similarity) AS similarity,
           bool_or(equal_content) AS equal_content, bool_or(linked) AS linked
    FROM detect_candidate GROUP BY memory1, memory2
),
-- Only pairs that can become findings go on to fetch content and confidence. A pair the judge
-- gave a verdict (a supersession, a duplicate, two values at once) or that one memory already
-- supersedes is neither a duplicate nor a negation contradiction here; for a pair the relation
-- model read, it keeps what it read (NULL for a pair it did not).
classified AS MATERIALIZED (
    SELECT p.*, a.negated <> b.negated AS polarity_differs, j.conflicting AS read_conflicting,
           j.same AS read_same
    FROM pair p
    JOIN detect_polarity a ON a.id = p.memory1
    JOIN detect_polarity b ON b.id = p.memory2
    LEFT JOIN detect_judged j ON j.memory1 = p.memory1 AND j.memory2 = p.memory2
    WHERE (p.equal_content OR p.linked
       OR (p.similarity >= %(duplicate_cosine)s AND a.negated = b.negated)
       OR (p.similarity >= %(contradiction_cosine)s AND a.negated <> b.negated))
      AND NOT EXISTS (
          SELECT 1 FROM detect_verdict v
          WHERE LEAST(v.memory1, v.memory2) = p.memory1 AND GREATEST(v.memory1, v.memory2) = p.memory2)
      AND NOT EXISTS (
          SELECT 1 FROM graph_association e WHERE e.relation_type = 'INVALIDATED_BY'
            AND e.source_id IN (p.memory1, p.memory2) AND e.target_id IN (p.memory1, p.memory2))
),
judged AS (
    SELECT c.*, m.confidence AS confidence1, o.confidence AS confidence2,
           {excerpt_sql("m.content")} AS content1, {excerpt_sql("o.content")} AS content2,
           -- linked by an association people made that says how they relate (LEADS_TO, ...)
           EXISTS (SELECT 1 FROM graph_association e
                   WHERE e.origin = 'user' AND e.relation_type <> 'CONTRADICTS'
                     AND e.source_id IN (c.memory1, c.memory2) AND e.target_id IN (c.memory1, c.memory2))
               AS related,
           CASE WHEN NOT c.polarity_differs THEN false
                WHEN (m.content ~* %(neg_en)s OR m.content ~ %(neg_zh)s)
                    THEN {NEGATES.format(neg="m", other="o")}
                ELSE {NEGATES.format(neg="o", other="m")} END AS negates
    FROM classified c
    JOIN memories_memory m ON m.id = c.memory1
    JOIN memories_memory o ON o.id = c.memory2
    LEFT JOIN quality_memoryreading m_r ON m_r.memory_id = m.id AND m_r.content_hash = m.content_hash
    LEFT JOIN quality_memoryreading o_r ON o_r.memory_id = o.id AND o_r.content_hash = o.content_hash
),
finding AS MATERIALIZED (
    SELECT DISTINCT ON (type, memory1, COALESCE(memory2, memory1)) * FROM (
        SELECT 'duplicate' AS type, memory1, memory2, LEAST(1, similarity) AS severity,
               CASE WHEN equal_content THEN 'Same content: "' || content1 || '"'
                    ELSE 'Near-duplicates (similarity ' || round(similarity::numeric, 3) || '): "'
                         || content1 || '" and "' || content2 || '"' END AS description,
               '{{}}'::jsonb AS details
        FROM judged
        WHERE equal_content
           OR (similarity >= %(duplicate_cosine)s AND NOT negates
               AND COALESCE(read_conflicting, 0) < %(conflict_relation)s)
        UNION ALL
        SELECT 'contradiction', memory1, memory2,
               LEAST(1, 0.5 + 0.3 * (confidence1 + confidence2) / 2 + 0.2 * GREATEST(0, similarity)),
               CASE WHEN linked THEN 'Linked as CONTRADICTS: "' ELSE 'Opposite negation (similarity '
                    || round(similarity::numeric, 3) || '): "' END
               || content1 || '" vs "' || content2 || '"',
               '{{}}'::jsonb
        FROM judged
        WHERE linked
           OR (similarity >= %(contradiction_cosine)s AND negates AND NOT related
               AND COALESCE(read_same, 0) < %(same_relation)s)
        UNION ALL
        SELECT v.type, v.memory1, v.memory2, v.severity, v.description, v.details
        FROM detect_verdict v
        UNION ALL
        SELECT 'outdated', m.id, NULL,
               LEAST(1, EXTRACT(EPOCH FROM now() - m.provenance_updated_at) / 86400.0 / 365),
               'Not updated or corroborated for '
               || floor(EXTRACT(EPOCH FROM now() - m.provenance_updated_at) / 86400.0) || ' days',
               '{{}}'::jsonb
        FROM memories_memory m
        WHERE {SCOPE} AND m.provenance_updated_at < now() - make_interval(days => %(outdated_days)s)
          AND ({changed("m")}
               OR m.provenance_updated_at > %(since)s::timestamptz - make_interval(days => %(outdated_days)s))
          -- a memory another one replaced is reported as superseded, not also as outdated
          AND m.valid_until IS NULL
          AND NOT EXISTS (SELECT 1 FROM detect_verdict v WHERE v.type = 'superseded' AND v.memory1 = m.id)
        UNION ALL
        SELECT 'low_confidence', m.id, NULL, 1 - m.confidence,
               'Confidence ' || round(m.confidence::numeric, 2) || ' is below '
               || %(low_confidence)s::numeric,
               '{{}}'::jsonb
        FROM memories_memory m
        WHERE {SEARCHED} AND m.confidence < %(low_confidence)s
    ) found
    ORDER BY type, memory1, COALESCE(memory2, memory1), severity DESC
),
-- The memories of the findings, locked against deletion until the run commits; one deleted since
-- the run read it is not found here, and its findings are not written.
locked AS MATERIALIZED (
    SELECT id FROM memories_memory
    WHERE id IN (SELECT memory1 FROM finding UNION SELECT memory2 FROM finding)
    ORDER BY id FOR KEY SHARE
),
upserted AS (
    INSERT INTO quality_inconsistency AS i
        (type, memory1_id, memory2_id, severity, description, details, status, resolution, detected_at)
    SELECT type, memory1, memory2, round(severity::numeric, 4)::float8, description, details,
           'open', '', now()
    FROM finding
    WHERE memory1 IN (SELECT id FROM locked) AND (memory2 IS NULL OR memory2 IN (SELECT id FROM locked))
    {UPSERT_RULE}
    RETURNING i.type, i.memory1_id, i.memory2_id, i.severity, i.status, i.details, (xmax = 0) AS created
),
stale AS (
    UPDATE quality_inconsistency s
    SET status = 'resolved', resolution = %(stale)s, resolved_at = now(), resolved_by_id = NULL
    FROM memories_memory m
    WHERE s.status = 'open' AND m.id = s.memory1_id
      -- A reviewer's reclassification holds while both memories are live.
      AND (s.reclassified_from = '' OR EXISTS (
          SELECT 1 FROM memories_memory c WHERE c.id IN (s.memory1_id, s.memory2_id)
            AND c.archived_at IS NOT NULL))
      AND (%(owner)s::integer IS NULL OR m.owner_id = %(owner)s)
      AND (%(since)s::timestamptz IS NULL OR EXISTS (
          SELECT 1 FROM memories_memory c WHERE c.id IN (s.memory1_id, s.memory2_id)
            AND (c.archived_at IS NOT NULL OR {changed("c")})))
      AND NOT EXISTS (
          SELECT 1 FROM finding f
          WHERE f.type = s.type AND f.memory1 = s.memory1_id
            AND COALESCE(f.memory2, f.memory1) = COALESCE(s.memory2_id, s.memory1_id))
    RETURNING s.type, s.memory1_id, s.memory2_id
),
-- New, changed and reopened rows come back from `upserted`; unchanged open rows do not.
changed AS (
    SELECT type, memory1_id, memory2_id FROM upserted
    UNION ALL
    SELECT type, memory1_id, memory2_id FROM stale
)
SELECT
    (SELECT json_object_agg(type, n) FROM (SELECT type, count(*) AS n FROM finding GROUP BY type) f),
    (SELECT count(*) FROM upserted WHERE created),
    (SELECT count(*) FROM stale),
    (SELECT array_agg(DISTINCT memory_id) FROM changed c,
            unnest(ARRAY[c.memory1_id, c.memory2_id]) AS memory_id
     WHERE c.type = 'contradiction' AND memory_id IS NOT NULL),
    (SELECT json_agg(json_build_array(u.memory1_id, u.memory2_id, m.owner_id))
     FROM upserted u JOIN memories_memory m ON m.id = u.memory1_id
     WHERE u.type = 'superseded' AND u.status = 'open' AND u.severity >= %(auto)s
       AND u.details->'signals' ?| %(decisive)s::text[]
       AND NOT u.details->'signals' ? %(turn)s)
"""


@dataclass
class DetectionResult:
    scanned: int = 0
    found: dict = field(default_factory=lambda: dict.fromkeys(Inconsistency.Type.values, 0))
    created: int = 0
    no_longer_detected: int = 0
    reevaluated: int = 0
    read: int = 0
    applied: int = 0
    timings_ms: dict = field(default_factory=dict)

    def as_dict(self):
        return {
            "scanned": self.scanned,
            "found": self.found,
            "created": self.created,
            "no_longer_detected": self.no_longer_detected,
            "reevaluated": self.reevaluated,
            "read": self.read,
            "applied": self.applied,
            "timings_ms": self.timings_ms,
        }


def _params(owner, changed_since=None):
    return {
        "owner": getattr(owner, "pk", owner),
        "since": changed_since,
        "neighbours": settings.DETECT_NEIGHBOURS,
        "min_cosine": min(settings.DETECT_DUPLICATE_MIN_COSINE, settings.DETECT_CONTRADICTION_MIN_COSINE),
        "duplicate_cosine": settings.DETECT_DUPLICATE_MIN_COSINE,
        "contradiction_cosine": settings.DETECT_CONTRADICTION_MIN_COSINE,
        "outdated_days": settings.DETECT_OUTDATED_DAYS,
        "low_confidence": settings.DETECT_LOW_CONFIDENCE,
        "conflict_relation": judging.CONFLICT_RELATION,
        "same_relation": judging.SAME_RELATION,
        "neg_en": NEGATION_EN,
        "neg_zh": NEGATION_ZH,
        "stale": STALE_RESOLUTION,
        "auto": settings.SUPERSEDE_AUTO_CONFIDENCE,
        "decisive": judging.DECISIVE,
        "turn": judging.TURN,
    }


def _session_settings():
    """Per-transaction planner settings: HNSW search breadth, no JIT, parallel chunks."""
    ef_search = max(settings.DETECT_HNSW_EF_SEARCH, settings.DETECT_NEIGHBOURS)
    return [
        "SET LOCAL work_mem = '256MB'",
        f"SET LOCAL hnsw.ef_search = {ef_search}",
        "SET LOCAL hnsw.iterative_scan = relaxed_order",
        "SET LOCAL jit = off",
        "SET LOCAL parallel_setup_cost = 0",
        "SET LOCAL parallel_tuple_cost = 0",
    ]


class _Clock:
    def __init__(self, timings):
        self.timings = timings
        self.started = time.perf_counter()

    def lap(self, name):
        now = time.perf_counter()
        self.timings[name] = round((now - self.started) * 1000)
        self.started = now


def _search_neighbours(cursor, params, scanned, progress):
    """Fill detect_candidate with each in-scope memory's near neighbours, chunk by chunk."""
    chunks = max(1, -(-scanned // CHUNK_SIZE))
    for chunk in range(chunks):
        cursor.execute("DROP TABLE IF EXISTS pg_temp.detect_chunk")
        cursor.execute(NEIGHBOUR_CHUNK, {**params, "chunks": chunks, "chunk": chunk})
        cursor.execute(
            "INSERT INTO detect_candidate (memory1, memory2, similarity) SELECT * FROM detect_chunk"
        )
        cursor.execute("DROP TABLE detect_chunk")
        if progress:
            progress(scanned * (chunk + 1) // chunks, scanned)


def detect_inconsistencies(owner=None, progress=None, changed_since=None):
    """Detect and persist the findings of `owner` (every owner when None), in one transaction.

    `changed_since` (a datetime) limits the run to what changed since then (module docstring).
    `progress(done, total)` is called after each chunk of memories has been searched.
    """
    params = _params(owner, changed_since)
    result = DetectionResult()
    clock = _Clock(result.timings_ms)
    # Readings are kept per content and committed batch by batch, before the run's transaction:
    # reading what was never read (memories stored before the reader existed) holds no locks.
    result.read = supersession.read_memories(SCOPE, params)
    clock.lap("reading")
    with transaction.atomic(), connection.cursor() as cursor:
        for statement in _session_settings():
            cursor.execute(statement)
        params["small_owners"] = neighbours.prepare(cursor, params["owner"])
        cursor.execute("DROP TABLE IF EXISTS pg_temp.detect_candidate, pg_temp.detect_polarity")
        cursor.execute(CREATE_CANDIDATES)
        cursor.execute(f"SELECT count(*) FROM memories_memory m WHERE {SEARCHED}", params)
        result.scanned = cursor.fetchone()[0]
        _search_neighbours(cursor, params, result.scanned, progress)
        cursor.execute(EQUAL_CONTENT_CANDIDATES, params)
        cursor.execute(LINKED_CANDIDATES, params)
        clock.lap("candidates")
        result.read += supersession.read_memories(SCOPE, params)  # stored since, under the lock
        judgement = supersession.verdicts(cursor, searched("n"), params)
        supersession.load_verdicts(cursor, judgement)
        clock.lap("supersession")
        cursor.execute(CREATE_POLARITY, params)
        cursor.execute("ANALYZE detect_candidate, detect_polarity, detect_verdict, detect_judged")
        cursor.execute(UPSERT_FINDINGS, params)
        found, result.created, result.no_longer_detected, touched, confident = cursor.fetchone()
        result.found.update(found or {})
        cursor.execute("DROP TABLE detect_candidate, detect_polarity, detect_verdict, detect_judged")
        clock.lap("findings")
        result.applied = supersession.apply(confident or [])
        if touched:
            result.reevaluated = evaluate_memories(sorted(touched), Trigger.FINDING)
        clock.lap("evaluation")
    supersession.keep(judgement.read)
    return result
