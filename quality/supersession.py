"""Supersession proposals: which older memories a memory replaces, found without a large language model.

Each memory's text is read once per content (`quality.facts`: a MemoryReading with its cues and
the vector of its frame, the text with its values masked). A memory is compared with the older
live memories of its owner nearest to it by vector (`MEMSITE_SUPERSEDE_NEIGHBOURS`, exact for a
small owner as in detection) at a cosine of at least MIN_SIMILARITY, not yet superseded and not
linked to it by INVALIDATED_BY. The relation model (`quality.facts.relation`) reads each pair's
two texts together; what it read is kept per pair of contents (`PairRelation`, under the model's
key), so a pair is read once whatever runs meet it. The judge (`quality.facts.judging`) gives each
pair a verdict with a confidence and the signals behind it.

A `superseded` finding (memory1 the older memory, memory2 the newer) records each verdict of at
least `MEMSITE_SUPERSEDE_MIN_CONFIDENCE`. One of at least `MEMSITE_SUPERSEDE_AUTO_CONFIDENCE`
that is new (or reopened) and rests on a decisive signal (`judging.DECISIVE`) is applied at
once: an INVALIDATED_BY association of origin `enrichment` from the older memory to the newer,
the finding resolved as `applied`. A curator reverses it by deleting that association; the
finding stays resolved, so the pair is not applied again unless one of its memories changes.
Two memories valid from the same moment that give one
attribute two values are a `contradiction` instead, and two that state the same fact a
`duplicate` (detection files both; a pair people linked by an association other than CONTRADICTS
is no contradiction).

Proposals run on a job after each store (`quality.propose_supersessions`, queued by enrichment)
and within every detection run (quality.detection), which also closes the proposals it no longer
finds.
"""

import json
from collections import defaultdict
from dataclasses import dataclass

from django.conf import settings
from django.db import connection, transaction

from graph.models import Origin
from graph.services import Link, associate_memories
from memories import changes, embeddings
from memsite.errors import Conflict
from quality import neighbours
from quality.facts import judging, reading, relation
from quality.findings import STALE_RESOLUTION, UPSERT_RULE, excerpt_sql

READ_BATCH = 2000
APPLIED_SQL = """
UPDATE quality_inconsistency i
SET status = 'resolved', resolution = %s, resolved_at = now(), resolved_by_id = NULL
FROM unnest(%s::uuid[], %s::uuid[]) AS p(older, newer)
WHERE i.type = 'superseded' AND i.memory1_id = p.older AND i.memory2_id = p.newer
"""
APPLIED = "applied"

# Below this cosine the judge never reaches MEMSITE_SUPERSEDE_MIN_CONFIDENCE on the labelled sets.
MIN_SIMILARITY = 0.35

UNREAD_SQL = """
SELECT m.id, m.content, m.content_hash FROM memories_memory m
LEFT JOIN quality_memoryreading r ON r.memory_id = m.id
WHERE ({scope}) AND (r.memory_id IS NULL OR r.content_hash <> m.content_hash)
ORDER BY m.id LIMIT %(batch)s
"""

# The memories are locked against deletion first (a memory deleted meanwhile is skipped, not a
# foreign-key error at commit).
STORE_READINGS_SQL = """
WITH v AS (
    SELECT * FROM jsonb_to_recordset(%s::jsonb) AS v(id uuid, content_hash text, reading jsonb, frame text)
), kept AS (
    SELECT m.id FROM memories_memory m WHERE m.id IN (SELECT id FROM v) FOR KEY SHARE
)
INSERT INTO quality_memoryreading (memory_id, content_hash, reading, frame, read_at)
SELECT v.id, v.content_hash, v.reading, v.frame::vector, now()
FROM v JOIN kept ON kept.id = v.id
ON CONFLICT (memory_id) DO UPDATE SET
    content_hash = EXCLUDED.content_hash, reading = EXCLUDED.reading, frame = EXCLUDED.frame,
    read_at = EXCLUDED.read_at
"""

# The older live memories nearest to each memory in scope, with both readings, whether a
# conversation turn is next to either of the two (PRECEDED_BY), and the relation the model gave
# their contents, if it read them already.
PAIRS_SQL = f"""
SELECT o.id, n.id, o.owner_id, 1 - x.distance, 1 - (o_r.frame <=> n_r.frame),
       (n.valid_from, n.created_at) > (o.valid_from, o.created_at), o_r.reading, n_r.reading,
       {excerpt_sql("o.content")}, {excerpt_sql("n.content")},
       EXISTS (SELECT 1 FROM graph_association e
               WHERE e.origin = 'user' AND e.relation_type <> 'CONTRADICTS'
                 AND e.source_id IN (o.id, n.id) AND e.target_id IN (o.id, n.id)),
       EXISTS (SELECT 1 FROM graph_association e
               JOIN memories_memory t
                 ON t.id = CASE WHEN e.source_id IN (o.id, n.id) THEN e.target_id ELSE e.source_id END
               WHERE e.relation_type = 'PRECEDED_BY' AND t.content ~ %(turn)s
                 AND (e.source_id IN (o.id, n.id) OR e.target_id IN (o.id, n.id))),
       o.content_hash, n.content_hash,
       o.content, n.content, pr.conflicting, pr.same
FROM memories_memory n
JOIN quality_memoryreading n_r ON n_r.memory_id = n.id AND n_r.content_hash = n.content_hash
CROSS JOIN LATERAL {neighbours.searched("n", "%(k)s")} x
JOIN memories_memory o ON o.id = x.id
JOIN quality_memoryreading o_r ON o_r.memory_id = o.id AND o_r.content_hash = o.content_hash
LEFT JOIN quality_pairrelation pr
    ON pr.model = %(relation_model)s AND pr.older_hash = o.content_hash AND pr.newer_hash = n.content_hash
WHERE ({{scope}}) AND 1 - x.distance >= %(min_similarity)s
  AND (o.valid_from, o.created_at, o.sequence) < (n.valid_from, n.created_at, n.sequence)
  AND (o.valid_until IS NULL OR o.valid_until > statement_timestamp())
  AND NOT EXISTS (
      SELECT 1 FROM graph_association a WHERE a.relation_type = 'INVALIDATED_BY'
        AND a.source_id IN (o.id, n.id) AND a.target_id IN (o.id, n.id)
  )
"""


def read_memories(scope, params):
    """Read (again) the memories in `scope` (SQL over `m`) whose content has no reading yet."""
    read = 0
    while True:
        with connection.cursor() as cursor:
            cursor.execute(UNREAD_SQL.format(scope=scope), {**params, "batch": READ_BATCH})
            rows = cursor.fetchall()
            if not rows:
                return read
            frames = embeddings.embed_many([reading.frame(content) for _, content, _ in rows])
            found = [
                {
                    "id": str(memory_id),
                    "content_hash": content_hash,
                    "reading": reading.read(content).as_json(),
                    "frame": embeddings.vector_literal(vector),
                }
                for (memory_id, content, content_hash), vector in zip(rows, frames, strict=True)
            ]
            cursor.execute(STORE_READINGS_SQL, [json.dumps(found)])
        read += len(rows)


FRAMES_SQL = """
SELECT m.id, m.content FROM memories_memory m
JOIN quality_memoryreading r ON r.memory_id = m.id AND r.content_hash = m.content_hash
WHERE m.id = ANY(%s::uuid[])
"""

UPDATE_FRAMES_SQL = """
UPDATE quality_memoryreading r SET frame = v.frame::vector
FROM unnest(%s::uuid[], %s::text[]) AS v(id, frame)
WHERE r.memory_id = v.id
"""


def reembed_frames(sender, memory_ids, **kwargs):
    """Embed again the frames of these memories' readings (`memories.signals.reembedded`): a frame
    is compared with other frames and with memory vectors, so all come from one provider."""
    with connection.cursor() as cursor:
        cursor.execute(FRAMES_SQL, [[str(memory_id) for memory_id in memory_ids]])
        rows = cursor.fetchall()
        if rows:
            frames = embeddings.embed_many([reading.frame(content) for _, content in rows])
            cursor.execute(
                UPDATE_FRAMES_SQL,
                [[memory_id for memory_id, _ in rows], [embeddings.vector_literal(v) for v in frames]],
            )


@dataclass
class Judgement:
    """What `verdicts` found: `found` [(older, newer, owner, Verdict, description)], every pair it
    judged with its relation [(older, newer, relation)], and the relations the model read now
    (`relate`), for the caller to `keep` once its transaction ends."""

    found: list
    judged: list
    read: dict


def verdicts(cursor, scope, params):
    """The Judgement of the memories in `scope` (SQL over `n`) and their older neighbours: the
    verdicts of every kind, replacements of at least MEMSITE_SUPERSEDE_MIN_CONFIDENCE; needs
    `neighbours.prepare` done."""
    cursor.execute(
        PAIRS_SQL.format(scope=scope),
        {
            **params,
            "k": settings.SUPERSEDE_NEIGHBOURS,
            "min_similarity": MIN_SIMILARITY,
            "relation_model": relation.key(),
            "turn": changes.TURN_SQL,
        },
    )
    rows = cursor.fetchall()
    relations, read = relate([row[-6:] for row in rows])
    found = []
    for row, pair_relation in zip(rows, relations, strict=True):
        older, newer, owner, similarity, frame_similarity, later = row[:6]
        older_reading, newer_reading = (reading.Reading.from_json(json.loads(data)) for data in row[6:8])
        older_text, newer_text, related, conversation, older_hash, newer_hash = row[8:14]
        verdict = judging.judge(
            older_reading, newer_reading, similarity, frame_similarity, later, pair_relation, conversation
        )
        if (
            verdict is None
            or older_hash == newer_hash  # copies: detection's duplicate of the same content
            or (verdict.kind == "superseded" and verdict.confidence < settings.SUPERSEDE_MIN_CONFIDENCE)
            or (verdict.kind == "contradiction" and related)
        ):
            continue
        found.append((older, newer, owner, verdict, describe(verdict, older_text, newer_text)))
    judged = [(row[0], row[1], pair_relation) for row, pair_relation in zip(rows, relations, strict=True)]
    return Judgement(found=found, judged=judged, read=read)


STORE_RELATIONS_SQL = """
INSERT INTO quality_pairrelation (model, older_hash, newer_hash, conflicting, same)
SELECT %s, older_hash, newer_hash, conflicting, same
FROM unnest(%s::text[], %s::text[], %s::float8[], %s::float8[])
    AS r(older_hash, newer_hash, conflicting, same)
ON CONFLICT (model, older_hash, newer_hash) DO NOTHING
"""


def relate(pairs):
    """The relation of each pair [(older hash, newer hash, older text, newer text, conflicting,
    same)] as a row of `relation.relations`, the kept one or the model's, and the relations read
    now ({(older hash, newer hash): relation}, each distinct pair of contents read once) for
    `keep` to store."""
    missing = {}
    for older_hash, newer_hash, older_text, newer_text, conflicting, _ in pairs:
        if conflicting is None:
            missing.setdefault((older_hash, newer_hash), (older_text, newer_text))
    read = dict(zip(missing, relation.relations(list(missing.values())), strict=True))
    found = [
        relation.row(conflicting, same) if conflicting is not None else read[(older_hash, newer_hash)]
        for older_hash, newer_hash, _, _, conflicting, same in pairs
    ]
    return found, read


def keep(read):
    """Store relations read by `verdicts`, in a transaction of their own after the caller's: a run
    that reads the same pair meanwhile never waits for another to commit."""
    if not read:
        return
    keys, values = list(read), list(read.values())
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            STORE_RELATIONS_SQL,
            [
                relation.key(),
                [older for older, _ in keys],
                [newer for _, newer in keys],
                [float(value[relation.CONFLICTING]) for value in values],
                [float(value[relation.SAME]) for value in values],
            ],
        )


def describe(verdict, older_text, newer_text):
    why = f"confidence {verdict.confidence:.2f}: {', '.join(verdict.signals)}"
    if verdict.kind == "superseded":
        return f'Replaced ({why}): "{older_text}" by "{newer_text}"'
    if verdict.kind == "duplicate":
        return f'The same fact ({why}): "{older_text}" and "{newer_text}"'
    return f'Both claim to hold at once ({why}): "{older_text}" vs "{newer_text}"'


def apply(rows):
    """Apply new confident proposals [(older, newer, owner)]: an INVALIDATED_BY association each
    (skipping one that would close a cycle), the finding resolved as applied. Answers how many."""
    by_owner = defaultdict(list)
    for older, newer, owner in rows:
        by_owner[owner].append((older, newer))
    applied = []
    for owner, pairs in by_owner.items():
        for older, newer in pairs:
            link = Link(older, newer, "INVALIDATED_BY", 1.0, {"reason": "superseded (detected)"})
            try:
                with transaction.atomic():
                    if associate_memories(owner, [link], Origin.ENRICHMENT):
                        applied.append((str(older), str(newer)))
            except Conflict:
                continue
    if applied:
        with connection.cursor() as cursor:
            olders, newers = [older for older, _ in applied], [newer for _, newer in applied]
            cursor.execute(APPLIED_SQL, [APPLIED, olders, newers])
    return len(applied)


def load_verdicts(cursor, judgement):
    """Put a Judgement in the temporary tables detection's upsert reads: its verdicts
    (`detect_verdict`) and every pair it judged with its relation (`detect_judged`), which
    detection's similarity and negation rules heed."""
    cursor.execute("DROP TABLE IF EXISTS pg_temp.detect_verdict, pg_temp.detect_judged")
    cursor.execute(
        "CREATE TEMPORARY TABLE detect_verdict (memory1 uuid, memory2 uuid, type text, severity float8, "
        "description text, details jsonb) ON COMMIT DROP"
    )
    cursor.execute(
        "CREATE TEMPORARY TABLE detect_judged ON COMMIT DROP AS "
        "SELECT LEAST(o, n) AS memory1, GREATEST(o, n) AS memory2, conflicting, same "
        "FROM unnest(%s::uuid[], %s::uuid[], %s::float8[], %s::float8[]) AS p(o, n, conflicting, same)",
        [
            [str(pair[0]) for pair in judgement.judged],
            [str(pair[1]) for pair in judgement.judged],
            [float(pair[2][relation.CONFLICTING]) for pair in judgement.judged],
            [float(pair[2][relation.SAME]) for pair in judgement.judged],
        ],
    )
    rows = [
        {
            "memory1": str(first),
            "memory2": str(second),
            "type": verdict.kind,
            "severity": verdict.confidence,
            "description": description,
            "details": verdict.as_json(),
        }
        for older, newer, _, verdict, description in judgement.found
        # a replacement names the older memory first; other findings order their pair by id
        for first, second in [(older, newer) if verdict.kind == "superseded" else sorted((older, newer))]
    ]
    cursor.execute(
        "INSERT INTO detect_verdict SELECT * FROM jsonb_to_recordset(%s::jsonb) AS v(memory1 uuid, "
        "memory2 uuid, type text, severity float8, description text, details jsonb)",
        [json.dumps(rows)],
    )


def propose(memory_ids):
    """Proposals for newly stored memories (the job after their enrichment): read them, judge them
    against their older neighbours, record the findings and apply the confident new ones."""
    ids = [str(memory_id) for memory_id in memory_ids]
    scope = "m.id = ANY(%(ids)s::uuid[]) AND m.archived_at IS NULL"
    with transaction.atomic():
        read_memories(scope, {"ids": ids})
        with connection.cursor() as cursor:
            small = neighbours.prepare(cursor)
            judgement = verdicts(
                cursor,
                "n.id = ANY(%(ids)s::uuid[]) AND n.archived_at IS NULL",
                {"ids": ids, "small_owners": small},
            )
            confident = record(cursor, judgement) if judgement.found else []
        applied = apply(confident)
    keep(judgement.read)
    return {"proposed": len(judgement.found), "applied": applied}


def record(cursor, judgement):
    """Record a Judgement's verdicts as findings; answers the new confident replacements to apply."""
    load_verdicts(cursor, judgement)
    cursor.execute(
        RECORD_SQL,
        {
            "auto": settings.SUPERSEDE_AUTO_CONFIDENCE,
            "decisive": judging.DECISIVE,
            "turn": judging.TURN,
            "stale": STALE_RESOLUTION,
        },
    )
    return cursor.fetchall()


# The findings of `detect_verdict` recorded as detection records them (UPSERT_RULE); answers the
# new or reopened superseded findings confident enough to apply.
RECORD_SQL = f"""
WITH locked AS MATERIALIZED (
    SELECT id, owner_id FROM memories_memory
    WHERE id IN (SELECT memory1 FROM detect_verdict UNION SELECT memory2 FROM detect_verdict)
    ORDER BY id FOR KEY SHARE
),
upserted AS (
    INSERT INTO quality_inconsistency AS i
        (type, memory1_id, memory2_id, severity, description, details, status, resolution, detected_at)
    SELECT v.type, v.memory1, v.memory2, round(v.severity::numeric, 4)::float8, v.description, v.details,
           'open', '', now()
    FROM detect_verdict v
    WHERE v.memory1 IN (SELECT id FROM locked) AND v.memory2 IN (SELECT id FROM locked)
    {UPSERT_RULE}
    RETURNING i.type, i.memory1_id, i.memory2_id, i.severity, i.status, i.details
)
SELECT u.memory1_id, u.memory2_id, l.owner_id FROM upserted u JOIN locked l ON l.id = u.memory1_id
WHERE u.type = 'superseded' AND u.status = 'open' AND u.severity >= %(auto)s
  AND u.details->'signals' ?| %(decisive)s::text[]
       AND NOT u.details->'signals' ? %(turn)s
"""
