"""Automatic enrichment of stored memories: PRECEDED_BY and SIMILAR_TO edges, entity tags.

`schedule(ids)` runs inside the store transaction: it marks the memories pending and queues one
`graph.tasks.enrich_memories` job for the whole batch in that same transaction, so the store
answers without waiting and a committed store always has its job. A worker then runs
`enrich(ids, claim=True)`, which also takes other pending memories. Enrichment never fails a
store: an error rolls back only the enrichment, which is recorded as failed (see
`GET /enrichment/status`) and can be re-run with `POST /enrichment/reprocess`. Transient database
errors are retried by the queue first; a periodic sweep (`requeue_pending`) re-queues memories left
pending, e.g. after a lost job or a job whose worker died after taking others' memories.
"""

import logging
from collections import defaultdict
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, F, Min
from django.utils import timezone

from graph import entities
from graph.models import Enrichment, EnrichmentStatus, EntityAlias, Origin
from graph.services import Link, associate_memories
from memories.models import Memory
from memsite import jobs

logger = logging.getLogger(__name__)
PRECEDED_STRENGTH = 0.5
SWEEP_BATCH = 500
SWEEP_LIMIT = 50_000
SUPERSESSION_TASK = "quality.propose_supersessions"
RETAG_BATCH = 500


def _scope(alias):
    """SQL: the conversation a memory belongs to, its first tag that is not an entity tag ('' for
    none). Entity tags are left out: enrichment appends them, and a job that tags a memory must not
    move it out of the conversation of the next memory, enriched before its own tags."""
    return (
        f"COALESCE((SELECT t FROM unnest({alias}.tags) WITH ORDINALITY AS u(t, i) "
        f"WHERE NOT starts_with(t, '{entities.PREFIX}') ORDER BY i LIMIT 1), '')"
    )


# The previous memory is the latest one before it in (created_at, sequence) order, so memories
# sharing a timestamp (one batch, or no timestamps at all) are chained in the order they were given.
PREVIOUS_SQL = f"""
SELECT n.id, n.owner_id, p.id
FROM memories_memory n
CROSS JOIN LATERAL (
    SELECT p.id FROM memories_memory p
    WHERE p.owner_id = n.owner_id AND p.id <> n.id AND p.archived_at IS NULL
      AND {_scope("p")} = {_scope("n")}
      AND (p.created_at, p.sequence) < (n.created_at, n.sequence)
      AND p.created_at >= n.created_at - %(window)s
    ORDER BY p.created_at DESC, p.sequence DESC
    LIMIT 1
) p
WHERE n.id = ANY(%(ids)s::uuid[])
"""

NEAREST_SQL = """
SELECT n.id, n.owner_id, s.id, s.score
FROM memories_memory n
CROSS JOIN LATERAL (
    SELECT p.id, 1 - (p.embedding <=> n.embedding) AS score FROM memories_memory p
    WHERE p.owner_id = n.owner_id AND p.id <> n.id AND p.archived_at IS NULL
    ORDER BY p.embedding <=> n.embedding
    LIMIT %(limit)s
) s
WHERE n.id = ANY(%(ids)s::uuid[]) AND s.score >= %(min_cosine)s
  AND NOT EXISTS (
    SELECT 1 FROM graph_association a
    WHERE a.source_id = s.id AND a.target_id = n.id AND a.relation_type = 'SIMILAR_TO'
  )
"""


# Each memory a job takes is advisory-locked until its transaction ends; one that another job's
# transaction holds is passed over, so concurrent jobs enrich different memories instead of all
# reading the same oldest ones and then waiting on each other's row locks.
LOCK_CLASS = 7202
TAKE = f"pg_try_advisory_xact_lock({LOCK_CLASS}, hashtext(memory_id::text))"

# A job's own memories still pending, and up to %(more)s other pending ones, oldest first (OFFSET 0
# keeps the lock out of the ordered scan: only the memories returned are locked).
PENDING_SQL = f"""
(SELECT memory_id FROM graph_enrichment
 WHERE memory_id = ANY(%(ids)s::uuid[]) AND status = 'pending' AND {TAKE})
UNION ALL
(SELECT memory_id FROM (
   SELECT memory_id FROM graph_enrichment
   WHERE status = 'pending' AND memory_id <> ALL(%(ids)s::uuid[])
   ORDER BY updated_at OFFSET 0
 ) oldest
 WHERE {TAKE} LIMIT %(more)s)
"""

# One row lock per memory, in the order of `ids`: for update when the job tags it (`own`), against
# deletion when the job only links to it. Each lateral subquery locks its row as the loop reaches it.
LOCK_SQL = """
SELECT count(own.id) + count(linked.id) FROM unnest(%(ids)s::uuid[]) AS u(id)
LEFT JOIN LATERAL (
    SELECT m.id FROM memories_memory m WHERE m.id = u.id AND u.id = ANY(%(own)s::uuid[]) FOR NO KEY UPDATE
) own ON true
LEFT JOIN LATERAL (
    SELECT m.id FROM memories_memory m WHERE m.id = u.id AND u.id <> ALL(%(own)s::uuid[]) FOR KEY SHARE
) linked ON true
"""

# Taken once their memories are locked: rows that another job holds or finished are left to it.
CLAIM_SQL = """
SELECT memory_id FROM graph_enrichment
WHERE memory_id = ANY(%s::uuid[]) AND status = 'pending'
FOR UPDATE SKIP LOCKED
"""

# The SIMILAR_TO pairs this job links: those whose lock it takes (a 64-bit hash of the pair, seeded
# with PAIR_LOCK_SEED). A pair whose lock another job holds is that job's to link, in the other
# direction: when it commits, or when the queue retries it.
PAIR_LOCK_SEED = 7203
FREE_PAIRS_SQL = f"""
SELECT v.source, v.target FROM unnest(%s::uuid[], %s::uuid[]) AS v(source, target)
WHERE pg_try_advisory_xact_lock(
    hashtextextended(LEAST(v.source, v.target)::text || GREATEST(v.source, v.target)::text, {PAIR_LOCK_SEED})
)
"""

# SIMILAR_TO edges written meanwhile (by another job) in the reverse direction of ours.
REVERSE_SIMILAR_SQL = """
SELECT a.source_id, a.target_id FROM graph_association a
JOIN unnest(%s::uuid[], %s::uuid[]) AS v(source, target) ON a.source_id = v.source AND a.target_id = v.target
WHERE a.relation_type = 'SIMILAR_TO'
"""


def schedule(memory_ids):
    """Mark new memories pending and queue their enrichment in the current transaction."""
    if not settings.ENRICHMENT_ENABLED or not memory_ids:
        return
    ids = [str(memory_id) for memory_id in memory_ids]
    Enrichment.objects.bulk_create(
        [Enrichment(memory_id=memory_id) for memory_id in ids], ignore_conflicts=True
    )
    _queue(ids)


def _queue(ids):
    from graph.tasks import enrich_memories

    return jobs.defer(enrich_memories, memory_ids=ids)


def requeue_pending():
    """Queue again the memories pending for longer than ENRICHMENT_SWEEP_AFTER_SECONDS.

    Their `updated_at` moves to now, so the next sweep leaves them alone while the new job waits.
    Answers how many memories were re-queued.
    """
    if not settings.ENRICHMENT_ENABLED:
        return 0
    cutoff = timezone.now() - timedelta(seconds=settings.ENRICHMENT_SWEEP_AFTER_SECONDS)
    with transaction.atomic():
        stale = Enrichment.objects.select_for_update(skip_locked=True).filter(
            status=EnrichmentStatus.PENDING, updated_at__lt=cutoff
        )
        oldest_first = stale.order_by("updated_at").values_list("memory_id", flat=True)
        ids = [str(pk) for pk in oldest_first[:SWEEP_LIMIT]]
        Enrichment.objects.filter(memory_id__in=ids).update(updated_at=timezone.now())
        for start in range(0, len(ids), SWEEP_BATCH):
            _queue(ids[start : start + SWEEP_BATCH])
    return len(ids)


def _preceded_links(ids):
    with connection.cursor() as cursor:
        cursor.execute(
            PREVIOUS_SQL, {"ids": ids, "window": timedelta(days=settings.ENRICHMENT_PRECEDED_MAX_DAYS)}
        )
        rows = cursor.fetchall()
    return [
        (owner, Link(new, previous, "PRECEDED_BY", PRECEDED_STRENGTH, {"count": 1}))
        for new, owner, previous in rows
    ]


def _similar_links(ids):
    """SIMILAR_TO from each new memory to its nearest live memories (HNSW), one edge per pair."""
    if settings.ENRICHMENT_SIMILAR_LIMIT == 0:
        return []
    with connection.cursor() as cursor:
        # Without sorting the planner must walk the HNSW index; with it, it may sort all of the
        # owner's rows while their statistics are young (25 ms instead of 0.4 ms per memory).
        cursor.execute(
            "SELECT current_setting('enable_sort'), "
            "set_config('hnsw.iterative_scan', 'relaxed_order', true), "
            "set_config('enable_sort', 'off', true)"
        )
        enable_sort = cursor.fetchone()[0]
        cursor.execute(
            NEAREST_SQL,
            {
                "ids": ids,
                "limit": settings.ENRICHMENT_SIMILAR_LIMIT,
                "min_cosine": settings.ENRICHMENT_SIMILAR_MIN_COSINE,
            },
        )
        rows = cursor.fetchall()
        cursor.execute("SELECT set_config('enable_sort', %s, true)", [enable_sort])
    links, pairs = [], set()
    for new, owner, other, score in sorted(rows, key=lambda row: -row[3]):
        pair = frozenset((new, other))
        if pair in pairs:
            continue
        pairs.add(pair)
        score = round(min(1.0, max(0.0, score)), 6)
        links.append((owner, Link(new, other, "SIMILAR_TO", score, {"score": score})))
    return links


def _known_entities(owner_id, candidates):
    """Which of these `entity:` tags the owner already uses: one GIN probe per tag, which stops at
    its first memory (asked for the overlap with all of them at once, PostgreSQL read every memory
    of the owner once a job had a thousand candidates: 340 ms against 15 ms at 12,000 memories)."""
    if not candidates:
        return set()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c FROM unnest(%s::text[]) AS c WHERE EXISTS ("
            "SELECT 1 FROM memories_memory m WHERE m.owner_id = %s AND m.tags @> ARRAY[c]::varchar[])",
            [list(candidates), owner_id],
        )
        return {row[0].removeprefix(entities.PREFIX) for row in cursor.fetchall()}


def _entity_tags(ids):
    """Add `entity:<slug>` tags for the proper names of these memories, a first name that is an
    alias as its entity (see `_aliases`); returns how many added."""
    rows = list(Memory.objects.filter(pk__in=ids).values_list("pk", "owner_id", "content", "tags"))
    by_owner = defaultdict(set)
    for _, owner, content, _ in rows:
        by_owner[owner] |= {entities.tag(name) for name in entities.candidate_slugs(content)}
    known = {owner: _known_entities(owner, candidates) for owner, candidates in by_owner.items()}
    names = {pk: entities.proper_names(content, known[owner]) for pk, owner, content, _ in rows}
    named = defaultdict(set)
    for pk, owner, _, _ in rows:
        named[owner] |= names[pk]
    aliases = {owner: _aliases(owner, owner_names) for owner, owner_names in named.items()}
    updates = {}
    for pk, owner, _, tags in rows:
        new = sorted({entities.tag(aliases[owner].get(name, name)) for name in names[pk]})
        updates[pk] = [tag for tag in new if tag not in tags]
    Memory.objects.add_tags(updates)
    return sum(len(new) for new in updates.values())


NEW_ALIASES_SQL = """
INSERT INTO graph_entityalias (owner_id, alias, entity, created_at)
SELECT %s, v.alias, v.entity, now() FROM unnest(%s::text[], %s::text[]) AS v(alias, entity)
ON CONFLICT (owner_id, alias) DO NOTHING
RETURNING alias, entity
"""


def _aliases(owner_id, names):
    """{alias: entity} for the owner's names: the aliases it has, and new ones for the full names
    among `names` whose first word is a first name (`entities.first_name_of`) not yet an alias.
    The first full name seen for a first name keeps it. Memories already tagged with a new alias
    are re-tagged by a queued job (`apply_aliases`)."""
    fulls = {}
    for name in sorted(names):
        if first := entities.first_name_of(name):
            fulls.setdefault(first, name)
    new = {}
    if fulls:
        firsts = sorted(fulls)  # in one order, so two jobs never wait on each other's aliases
        with connection.cursor() as cursor:
            cursor.execute(NEW_ALIASES_SQL, [owner_id, firsts, [fulls[first] for first in firsts]])
            new = dict(cursor.fetchall())
    if new:
        from graph.tasks import apply_entity_aliases

        jobs.defer(apply_entity_aliases, owner_id=owner_id, aliases=sorted(new.items()))
    wanted = {*names, *fulls}
    rows = EntityAlias.objects.filter(owner_id=owner_id, alias__in=wanted).values_list("alias", "entity")
    return dict(rows)


APPLY_ALIAS_SQL = """
UPDATE memories_memory m
SET tags = ARRAY(
    SELECT t FROM unnest(array_replace(m.tags, %(alias)s, %(entity)s)) WITH ORDINALITY AS u(t, n)
    GROUP BY t ORDER BY min(n)
)
WHERE m.owner_id = %(owner)s AND m.tags @> ARRAY[%(alias)s]::varchar[]
"""


def apply_aliases(owner_id, aliases):
    """Re-tag the owner's memories tagged with an alias (`[[alias slug, entity slug], ...]`) with
    its entity instead, in place, in one transaction; answers how many memories changed. Each
    UPDATE reads the rows it locks: a memory deleted meanwhile is passed over, one tagged
    meanwhile keeps its other tags."""
    changed = 0
    with transaction.atomic(), connection.cursor() as cursor:
        for alias, entity in aliases:
            cursor.execute(
                APPLY_ALIAS_SQL,
                {"owner": owner_id, "alias": entities.tag(alias), "entity": entities.tag(entity)},
            )
            changed += cursor.rowcount
    return changed


def retag(after=None):
    """Add the entity tags of today's rules to the next RETAG_BATCH memories in id order (those
    after `after`), in one transaction; answers how many memories and tags, and the last id (None
    once every memory is done). Only missing tags are added, so a second pass changes nothing; a
    memory deleted meanwhile is passed over, and one tagged meanwhile keeps each tag once (the
    UPDATE of `Memory.objects.add_tags` reads the row it locks)."""
    memories = Memory.objects.order_by("pk")
    if after:
        memories = memories.filter(pk__gt=after)
    ids = [str(pk) for pk in memories.values_list("pk", flat=True)[:RETAG_BATCH]]
    if not ids:
        return {"memories": 0, "entity_tags": 0, "last": None}
    with transaction.atomic():
        tags = _entity_tags(ids)
    return {"memories": len(ids), "entity_tags": tags, "last": ids[-1]}


def _write(links):
    by_owner = defaultdict(list)
    for owner, link in links:
        by_owner[owner].append(link)
    return sum(len(associate_memories(owner, items, Origin.ENRICHMENT)) for owner, items in by_owner.items())


def enrich(memory_ids, retry_transient=False, claim=False):
    """Enrich these memories now, all in one transaction; record done or failed.

    With `claim` (a queued job), only those still pending are enriched, and with them up to
    ENRICHMENT_TAKE_PENDING other pending memories (whose own jobs then find nothing left to do):
    under a stream of single stores one job does the work of many. Memories another job has taken
    or finished meanwhile are left out. Never raises, except a transient database error when
    `retry_transient` (the queue retries).
    """
    own = [str(memory_id) for memory_id in memory_ids]
    ids = own  # what a failure is recorded for
    try:
        with transaction.atomic():
            candidates = _pending(own) if claim else own
            ids = sorted(set(candidates) & set(own))
            if not candidates:
                return {"processed": 0, "edges": 0, "entity_tags": 0, "failed": 0}
            links = _preceded_links(candidates) + _similar_links(candidates)
            _lock_memories(candidates, links)
            ids = _claim(candidates) if claim else candidates
            links = _still_wanted(ids, links)
            tags = _entity_tags(ids) if settings.ENRICHMENT_ENTITY_TAGS else 0
            edges = _write(links)
            Enrichment.objects.filter(memory_id__in=ids).update(
                status=EnrichmentStatus.DONE, error="", attempts=F("attempts") + 1, updated_at=timezone.now()
            )
            if ids:  # which older memories they replace, with their entity tags in place
                jobs.defer_task(SUPERSESSION_TASK, memory_ids=ids)
    except Exception as error:
        if retry_transient and isinstance(error, jobs.TRANSIENT_ERRORS):
            raise
        logger.exception("enrichment failed for %d memories", len(ids))
        _record_failure(ids, error)
        return {"processed": len(ids), "edges": 0, "entity_tags": 0, "failed": len(ids)}
    return {"processed": len(ids), "edges": edges, "entity_tags": tags, "failed": 0}


def _pending(ids):
    with connection.cursor() as cursor:
        cursor.execute(PENDING_SQL, {"ids": ids, "more": settings.ENRICHMENT_TAKE_PENDING})
        return [str(row[0]) for row in cursor.fetchall()]


def _claim(ids):
    with connection.cursor() as cursor:
        cursor.execute(CLAIM_SQL, [ids])
        return [str(row[0]) for row in cursor.fetchall()]


def _still_wanted(ids, links):
    """The links to write once the memories are locked: from the memories this job enriches, and
    one SIMILAR_TO edge per pair: none for a pair another job is linking (`FREE_PAIRS_SQL`) or
    has linked the other way (`REVERSE_SIMILAR_SQL`, read once the pairs are locked)."""
    ids = set(ids)
    links = [(owner, link) for owner, link in links if str(link.source) in ids]
    similar = [link for _, link in links if link.relation_type == "SIMILAR_TO"]
    if not similar:
        return links
    with connection.cursor() as cursor:
        sources, targets = [str(link.source) for link in similar], [str(link.target) for link in similar]
        cursor.execute(FREE_PAIRS_SQL, [sources, targets])
        free = {(str(source), str(target)) for source, target in cursor.fetchall()}
        cursor.execute(REVERSE_SIMILAR_SQL, [targets, sources])
        reverse = {(str(target), str(source)) for source, target in cursor.fetchall()}
    wanted = free - reverse
    return [
        (owner, link)
        for owner, link in links
        if link.relation_type != "SIMILAR_TO" or (str(link.source), str(link.target)) in wanted
    ]


def _lock_memories(ids, links):
    """Lock the memories this enrichment tags (`ids`) and those it links to, in one statement in
    id order (`LOCK_SQL`).

    Its own memories are locked for update; those it only links to are locked against deletion
    (KEY SHARE), which another job updating them as its own does not wait for: two jobs enriching
    neighbouring memories of one owner run side by side. A delete waits for the job and then
    removes its edges with the memory; taken in id order, as a delete takes them, these locks
    cannot deadlock with one. Links are found before this, without locks, and checked again after
    it (`_still_wanted`); a link to a memory deleted in between does not land (see
    graph.services.associate_memories). Memory rows are locked before enrichment rows, in the
    order a delete takes them.
    """
    memory_ids = sorted({*ids, *(str(link.target) for _, link in links)})
    with connection.cursor() as cursor:
        cursor.execute(LOCK_SQL, {"ids": memory_ids, "own": list(ids)})


def _record_failure(ids, error):
    """Record the failure; if even that is impossible (database gone), the log has it."""
    try:
        Enrichment.objects.filter(memory_id__in=ids).update(
            status=EnrichmentStatus.FAILED,
            error=f"{type(error).__name__}: {error}"[:2000],
            attempts=F("attempts") + 1,
            updated_at=timezone.now(),
        )
    except Exception:
        logger.exception("could not record the enrichment failure")


def reprocess(memory_ids):
    """Re-run enrichment for existing memories (any owner: staff only)."""
    ids = [str(pk) for pk in Memory.objects.filter(pk__in=memory_ids).values_list("pk", flat=True)]
    Enrichment.objects.bulk_create([Enrichment(memory_id=pk) for pk in ids], ignore_conflicts=True)
    Enrichment.objects.filter(memory_id__in=ids).update(status=EnrichmentStatus.PENDING)
    result = enrich(ids)
    result["not_found"] = sorted({str(pk) for pk in memory_ids} - set(ids))
    return result


def status_for(user):
    """Counts by status for the user's memories, with the pending and failed ones listed."""
    mine = Enrichment.objects.filter(memory__owner=user)
    counts = dict(mine.values_list("status").annotate(count=Count("pk")).order_by("status"))
    failed = [
        {"memory_id": str(row["memory_id"]), "error": row["error"], "attempts": row["attempts"]}
        for row in mine.filter(status=EnrichmentStatus.FAILED)
        .order_by("-updated_at")
        .values("memory_id", "error", "attempts")[:100]
    ]
    pending = [
        str(pk)
        for pk in mine.filter(status=EnrichmentStatus.PENDING)
        .order_by("updated_at")
        .values_list("memory_id", flat=True)[:100]
    ]
    oldest = mine.filter(status=EnrichmentStatus.PENDING).aggregate(at=Min("updated_at"))["at"]
    lag = None if oldest is None else max(0.0, (timezone.now() - oldest).total_seconds())
    return {
        "enabled": settings.ENRICHMENT_ENABLED,
        "lag_seconds": None if lag is None else round(lag, 3),
        "pending_count": counts.get(EnrichmentStatus.PENDING, 0),
        "done_count": counts.get(EnrichmentStatus.DONE, 0),
        "failed_count": counts.get(EnrichmentStatus.FAILED, 0),
        "pending": pending,
        "failed": failed,
    }
