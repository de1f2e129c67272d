"""Writes to memories. Each public function is one transaction.

A stored memory gets its vector, its graph vertex and its first quality evaluation in the same
transaction as its row, so none of them can exist without the others.
"""

import hashlib
import time
import unicodedata
from functools import partial

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.db.models import NOT_PROVIDED, Exists, OuterRef
from django.utils import timezone

from graph import age, enrichment
from graph.models import Origin
from graph.services import Link, associate_memories
from memories import embeddings
from memories.models import LIVE, Memory, PendingAccess
from memories.queries import NOT_FOUND
from memories.signals import reembedded
from memsite import jobs
from memsite.db import retry_on_conflict
from memsite.errors import Conflict, Invalid, NotFound
from quality import metrics

# POST /admin/reembed does this many ids in the request; more, or all, go to a worker.
REEMBED_INLINE_MAX = 500

QUALITY_FIELDS = [
    "confidence",
    "quality_overall",
    "quality_score",
    "quality_accuracy",
    "quality_completeness",
    "quality_consistency",
    "quality_timeliness",
    "quality_relevance",
    "quality_evaluated_at",
    "low_quality_since",
]


def normalize_content(content):
    """The form two memories are compared in: NFKC, whitespace collapsed, case folded."""
    return " ".join(unicodedata.normalize("NFKC", content).split()).casefold()


def content_hash(content):
    return hashlib.sha256(normalize_content(content).encode("utf-8")).hexdigest()


def _lock_hashes(owner_id, hashes):
    """Serialize concurrent stores of the same content by one owner until the transaction ends."""
    keys = sorted(
        {
            int.from_bytes(hashlib.sha256(f"{owner_id}:{digest}".encode()).digest()[:8], "big", signed=True)
            for digest in hashes
        }
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_advisory_xact_lock(k)) FROM (SELECT unnest(%s::bigint[]) AS k ORDER BY k) s",
            [keys],
        )


def _live_with_hashes(owner, hashes):
    return Memory.objects.filter(LIVE, owner=owner, content_hash__in=set(hashes))


def _live_duplicates(owner, hashes):
    """{content_hash: memory} for the owner's live memories with one of these hashes."""
    found = _live_with_hashes(owner, hashes).order_by("created_at", "sequence")
    return {memory.content_hash: memory for memory in found}


def _locked(memory):
    """The memory's row, locked until the transaction ends; 404 when a concurrent request deleted it."""
    locked = Memory.objects.select_for_update().filter(pk=memory.pk).first()
    if locked is None:
        raise NotFound(NOT_FOUND)
    return locked


def _refuse_twin(memory, digest):
    """409 naming the owner's other live memory with this content hash, if there is one.

    Takes the same lock as a store of that content, so a concurrent store cannot slip past.
    """
    _lock_hashes(memory.owner_id, [digest])
    twin = (
        Memory.objects.filter(LIVE, owner_id=memory.owner_id, content_hash=digest)
        .exclude(pk=memory.pk)
        .values_list("pk", flat=True)
        .first()
    )
    if twin is not None:
        raise Conflict(f"A live memory with this content already exists: {twin}")


def _insert(memories):
    """Write new rows with one COPY, in their order (so `sequence` follows it).

    A multi-row INSERT of a batch of 500 sends 23 parameters a row for the server to parse and
    costs twice the time of the index updates it causes; COPY streams the same values, each as
    its field writes it for the database.
    """
    # Generated columns and those with a database default (the sequence) are the database's to fill.
    fields = [
        field
        for field in Memory._meta.concrete_fields
        if not field.generated and field.db_default is NOT_PROVIDED
    ]
    columns = ", ".join(connection.ops.quote_name(field.column) for field in fields)
    statement = f"COPY {Memory._meta.db_table} ({columns}) FROM STDIN"
    # Errors come out as Django's, as from any statement (a lost connection is a 503, not a 500).
    errors_as_django = connection.wrap_database_errors
    columns_from = [
        (field.attname, partial(field.get_db_prep_save, connection=connection)) for field in fields
    ]
    with connection.cursor() as cursor, errors_as_django, cursor.cursor.copy(statement) as copy:
        for memory in memories:
            copy.write_row([convert(getattr(memory, name)) for name, convert in columns_from])
    for memory in memories:
        memory._state.adding, memory._state.db = False, connection.alias


def _refresh_database_values(memories):
    """Copy the values the database gave the new rows (their sequence, and what evaluate_memories
    wrote) onto the in-memory objects."""
    fresh = Memory.objects.filter(pk__in=[memory.pk for memory in memories]).values(
        "pk", "sequence", *QUALITY_FIELDS
    )
    by_id = {row.pop("pk"): row for row in fresh}
    for memory in memories:
        for field, value in by_id.get(memory.pk, {}).items():
            setattr(memory, field, value)


def _stored(memories):
    """Everything that belongs to new rows, inside the store transaction.

    Post-commit work for new memories (graph enrichment) registers here with
    `transaction.on_commit`.
    """
    age.add_memory_vertices(memories)
    metrics.evaluate_memories([memory.pk for memory in memories], "store")
    _refresh_database_values(memories)
    enrichment.schedule([memory.pk for memory in memories])


SUPERSEDES_NOT_FOUND = "'supersedes' names {id}, which is not one of your live memories"
SUPERSEDES_ITSELF = "A memory cannot supersede itself"


def check_supersedes(owner, items):
    """{position: message} for the items whose `supersedes` names a memory that is not one of the
    owner's live memories, or (an integer) no earlier item of the same call."""
    ids = {entry for item in items for entry in item.get("supersedes", []) if not isinstance(entry, int)}
    live = set(Memory.objects.filter(LIVE, owner=owner, pk__in=ids).values_list("pk", flat=True))
    failures = {}
    for position, item in enumerate(items):
        for entry in item.get("supersedes", []):
            if isinstance(entry, int) and not entry < position:
                failures[position] = f"'supersedes' index {entry} is not an earlier item of this batch"
            elif not isinstance(entry, int) and entry not in live:
                failures[position] = SUPERSEDES_NOT_FOUND.format(id=entry)
            if position in failures:
                break
    return failures


def _supersede(owner, results, items):
    """The INVALIDATED_BY associations the items' `supersedes` ask for: from each named memory to
    the item's memory (the stored one, or the live one it duplicates)."""
    links = []
    for (memory, _), item in zip(results, items, strict=True):
        for entry in item.get("supersedes", []):
            older = results[entry][0].pk if isinstance(entry, int) else entry
            if older == memory.pk:
                raise Invalid(SUPERSEDES_ITSELF)
            links.append(Link(older, memory.pk, "INVALIDATED_BY", 1.0, {}))
    if links and len(associate_memories(owner.pk, links, Origin.USER)) < len({link.key for link in links}):
        raise NotFound("A memory to supersede was deleted meanwhile")


@retry_on_conflict
def store_memories(owner, items):
    """Store validated items; answer [(memory, duplicate)] in the order of `items`.

    Content equal (by hash) to one of the owner's live memories, or to an earlier item of the
    same call, is not stored again: its entry is the existing memory with duplicate=True. Vectors
    are computed in one batch before the transaction, for the items not already known. An item's
    `supersedes` (ids, or the positions of earlier items) become INVALIDATED_BY associations to its
    memory in the same transaction (`check_supersedes` tells which items name memories in vain).
    """
    hashes = [content_hash(item["content"]) for item in items]
    known = set(_live_with_hashes(owner, hashes).values_list("content_hash", flat=True))
    fresh = {}
    for item, digest in zip(items, hashes, strict=True):
        if digest not in known and digest not in fresh:
            fresh[digest] = item
    contents = [item["content"] for item in fresh.values()]
    vectors = dict(zip(fresh, embeddings.embed_many(contents), strict=True))

    now = timezone.now()
    with transaction.atomic():
        _lock_hashes(owner.pk, hashes)
        known = _live_duplicates(owner, hashes)
        new = []
        for digest, item in fresh.items():
            if digest in known:
                continue
            created_at = item["created_at"] or now
            memory = Memory(
                valid_from=item.get("valid_from") or created_at,
                owner=owner,
                content=item["content"],
                content_hash=digest,
                embedding=vectors[digest],
                tags=item["tags"],
                memory_type=item["memory_type"],
                importance=item["importance"],
                metadata=item["metadata"],
                source_type=item["source_type"],
                source_id=item["source_id"],
                is_explicit=item["is_explicit"],
                created_at=created_at,
                entered_at=now,
                # The row changes now, whatever time the memory remembers: an imported memory is
                # as fresh as its entry (timeliness and `outdated` count from here).
                updated_at=now,
                provenance_updated_at=now,
            )
            new.append(memory)
            known[digest] = memory
        if new:
            _insert(new)
            _stored(new)
        created = {memory.content_hash for memory in new}
        results, seen = [], set()
        for digest in hashes:
            results.append((known[digest], digest not in created or digest in seen))
            seen.add(digest)
        _supersede(owner, results, items)
    return results


def store_memory(owner, item):
    """Store one validated item; answer (memory, duplicate). A `supersedes` naming a memory that is
    not one of the owner's live memories is refused (400) before anything is stored."""
    failure = check_supersedes(owner, [item]).get(0)
    if failure:
        raise Invalid(failure)
    return store_memories(owner, [item])[0]


@retry_on_conflict
def update_memory(memory, changes):
    """Apply a PATCH. New content is re-embedded; the evaluation recomputes confidence.

    Content equal to another of the owner's live memories is refused with a 409 naming it.
    """
    vector = None
    content_changed = "content" in changes and changes["content"] != memory.content
    if content_changed:
        vector = embeddings.embed(changes["content"])
    with transaction.atomic():
        memory = _locked(memory)
        now = timezone.now()
        fields = set()
        for name in ("tags", "importance", "metadata", "memory_type", "created_at", "valid_from"):
            if name in changes:
                setattr(memory, name, changes[name])
                fields.add(name)
        if content_changed:
            digest = content_hash(changes["content"])
            if memory.archived_at is None:
                _refuse_twin(memory, digest)
            memory.content = changes["content"]
            memory.content_hash = digest
            memory.embedding = vector
            memory.updated_at = memory.provenance_updated_at = now
            fields |= {"content", "content_hash", "embedding", "updated_at", "provenance_updated_at"}
        provenance = {"source_type", "source_id", "is_explicit"} & changes.keys()
        if provenance:
            for name in provenance:
                setattr(memory, name, changes[name])
            memory.provenance_updated_at = now
            fields |= provenance | {"provenance_updated_at"}
        if fields:
            memory.save(update_fields=sorted(fields))
            metrics.evaluate_memories([memory.pk], "update")
        if changes.get("supersedes"):
            if memory.pk in changes["supersedes"]:
                raise Invalid(SUPERSEDES_ITSELF)
            failure = check_supersedes(memory.owner, [changes]).get(0)
            if failure:
                raise Invalid(failure)
            _supersede(memory.owner, [(memory, False)], [changes])
        memory.refresh_from_db()
    return memory


@retry_on_conflict
def delete_memory(memory):
    """Delete the row, its associations (cascade) and its graph vertex with its edges.

    The row is locked first: a write that links to the memory either finished before (its edges
    go with the vertex) or waits and then finds no memory.
    """
    with transaction.atomic():
        _locked(memory)
        replaced = list(Memory.objects.filter(superseded_by=memory).values_list("pk", flat=True))
        age.remove_memory_vertices([memory.pk])
        Memory.objects.filter(pk=memory.pk).delete()
        if replaced:  # valid again, unless another memory replaces them too
            metrics.evaluate_memories(replaced, "supersession")


@retry_on_conflict
def corroborate_memory(memory, source_id):
    """Add a distinct corroborating source; answer (memory, added). A known source changes nothing."""
    with transaction.atomic():
        memory = _locked(memory)
        if source_id in memory.corroborating_sources or source_id == memory.source_id:
            return memory, False
        memory.corroborating_sources = [*memory.corroborating_sources, source_id]
        memory.provenance_updated_at = timezone.now()
        memory.save(update_fields=["corroborating_sources", "provenance_updated_at"])
        metrics.evaluate_memories([memory.pk], "corroborate")
        memory.refresh_from_db()
    return memory, True


@retry_on_conflict
def archive_memory(memory, reason="manual"):
    """Soft-archive: the memory leaves recall and listings until restored."""
    with transaction.atomic():
        memory = _locked(memory)
        changed = memory.archived_at is None
        if changed:
            memory.archived_at = timezone.now()
            memory.archive_reason = reason
            memory.save(update_fields=["archived_at", "archive_reason"])
    return memory, changed


def archive_memories(memories, reason="manual"):
    """Soft-archive every live memory of a queryset in one UPDATE; answer how many changed.

    `reason` is text, or an SQL expression over the row giving each memory its own reason
    (consolidation's retention and cleanup say why each memory went)."""
    with transaction.atomic():
        live = memories.filter(LIVE)
        return live.update(archived_at=timezone.now(), archive_reason=reason)


def protect_memories(memories, protected=True):
    """Set or clear the protection from archival of every memory of a queryset; answer how many."""
    return memories.update(protected=protected)


def restore_memories(memories):
    """Restore the archived memories of a queryset in one UPDATE; answer (restored, refused).

    The duplicate rule holds as in restore_memory: a memory whose content its owner has live
    again is not restored, and of archived twins only the latest archived comes back.
    """
    with transaction.atomic():
        archived = memories.filter(~LIVE)
        hashes_by_owner = {}
        for owner_id, digest in archived.values_list("owner_id", "content_hash").order_by("owner_id"):
            hashes_by_owner.setdefault(owner_id, []).append(digest)
        for owner_id, hashes in hashes_by_owner.items():  # as a store of the same text would
            _lock_hashes(owner_id, hashes)
        latest = archived.order_by("owner_id", "content_hash", "-archived_at").distinct(
            "owner_id", "content_hash"
        )
        live_twin = Memory.objects.filter(
            LIVE, owner=OuterRef("owner"), content_hash=OuterRef("content_hash")
        )
        restorable = Memory.objects.filter(pk__in=latest.values("pk")).exclude(Exists(live_twin))
        total = archived.count()
        restored = Memory.objects.filter(pk__in=restorable.values("pk")).update(
            archived_at=None, archive_reason=""
        )
        return restored, total - restored


@retry_on_conflict
def restore_memory(memory):
    """Bring an archived memory back; 409 naming the live memory its content was stored as since."""
    with transaction.atomic():
        memory = _locked(memory)
        changed = memory.archived_at is not None
        if changed:
            _refuse_twin(memory, memory.content_hash)
            memory.archived_at = None
            memory.archive_reason = ""
            memory.save(update_fields=["archived_at", "archive_reason"])
    return memory, changed


REEMBED_SQL = """
UPDATE memories_memory AS m SET embedding = v.embedding::vector
FROM unnest(%s::uuid[], %s::text[]) AS v(id, embedding)
WHERE m.id = v.id
"""


def queue_reembed(memory_ids, batch_size):
    """Queue re-embedding of these memories (all when None) for a worker; answers the job id."""
    from memories.tasks import reembed_memories as task

    ids = None if memory_ids is None else [str(pk) for pk in memory_ids]
    return jobs.defer(task, memory_ids=ids, batch_size=batch_size)


def reembed_memories(queryset, batch_size=None, progress=None):
    """Recompute the vectors of `queryset` in batches: one encode and one UPDATE per batch.

    `progress(n)` is called after each batch with the number done in it. Answers
    {"reembedded": n, "seconds": s, "provider": name}.
    """
    provider = embeddings.get_provider()
    batch_size = batch_size or 256
    started = time.perf_counter()
    done = 0
    last_id = None
    rows = queryset.order_by("pk").values_list("pk", "content")
    while True:
        page = rows.filter(pk__gt=last_id) if last_id else rows
        batch = list(page[:batch_size])
        if not batch:
            break
        vectors = provider.embed_many([content for _, content in batch])
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(
                    REEMBED_SQL,
                    [[pk for pk, _ in batch], [embeddings.vector_literal(vector) for vector in vectors]],
                )
            reembedded.send(sender=Memory, memory_ids=[pk for pk, _ in batch])
        done += len(batch)
        last_id = batch[-1][0]
        if progress:
            progress(len(batch))
    return {"reembedded": done, "seconds": round(time.perf_counter() - started, 3), "provider": provider.name}


# --- Access counters: recall reads, these write (in batches, on the primary) ---

PENDING_TABLE = PendingAccess._meta.db_table
# The largest access_count the column holds: the count stops there instead of overflowing.
MAX_ACCESS_COUNT = 2147483647
ACCESS_BATCH = 5000
# Queue the accesses and tell whether an apply job already waits, in one round trip.
# The statement's transaction commits without waiting for its WAL to reach the disk
# (`synchronous_commit` off for it alone): a crash may lose the accesses of its last moments, never
# other writes, and a recall does not wait for a disk flush to count them.
QUEUE_ACCESS_SQL = f"""
WITH unflushed AS MATERIALIZED (SELECT set_config('synchronous_commit', 'off', true)),
queued AS (
    INSERT INTO {PENDING_TABLE} (memory_id, accessed_at) SELECT unnest(%(ids)s::uuid[]), %(at)s
)
SELECT EXISTS (SELECT 1 FROM procrastinate_jobs WHERE queueing_lock = %(lock)s AND status = 'todo')
FROM unflushed
"""
# One batch: take pending accesses (skipping those another worker took), add them up per memory,
# lock the memories in id order (concurrent batches queue instead of deadlocking), update them.
APPLY_ACCESS_SQL = f"""
WITH taken AS (
    DELETE FROM {PENDING_TABLE} WHERE id IN (
        SELECT id FROM {PENDING_TABLE} ORDER BY id LIMIT %(batch)s FOR UPDATE SKIP LOCKED
    )
    RETURNING memory_id, accessed_at
),
totals AS (
    SELECT memory_id, count(*) AS accesses, max(accessed_at) AS latest FROM taken GROUP BY memory_id
),
locked AS (
    SELECT m.id, t.accesses, t.latest FROM memories_memory m JOIN totals t ON t.memory_id = m.id
    ORDER BY m.id FOR UPDATE OF m
)
UPDATE memories_memory AS m
SET access_count = LEAST(m.access_count::bigint + l.accesses, %(max)s)::integer,
    last_accessed_at = GREATEST(m.last_accessed_at, l.latest)
FROM locked l WHERE m.id = l.id
"""


def record_access(memories, accessed_at=None):
    """Count an access to each of these memories: queued on the primary, applied by a worker.

    Appends one pending row per memory. The first recall of a window queues `apply_accesses` to
    start `ACCESS_APPLY_DELAY_SECONDS` later; the recalls until it starts find it waiting and
    queue nothing (its queueing lock settles a race), so a busy service runs one job per window,
    not one per recall. The objects show their new counts at once.
    """
    if not memories:
        return
    accessed_at = accessed_at or timezone.now()
    from memories.tasks import apply_accesses as task

    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute(
            QUEUE_ACCESS_SQL,
            {"ids": [memory.pk for memory in memories], "at": accessed_at, "lock": task.queueing_lock},
        )
        (waiting,) = cursor.fetchone()
    if not waiting:
        delay = settings.ACCESS_APPLY_DELAY_SECONDS
        jobs.defer_unless_waiting(task.configure(schedule_in={"seconds": delay}) if delay else task)
    for memory in memories:
        memory.last_accessed_at = accessed_at
        memory.access_count = min(memory.access_count + 1, MAX_ACCESS_COUNT)


@retry_on_conflict
def _apply_access_batch():
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(APPLY_ACCESS_SQL, {"batch": ACCESS_BATCH, "max": MAX_ACCESS_COUNT})
        return cursor.rowcount


def apply_accesses():
    """Add every pending access to its memory's counters, a batch per transaction; answers
    {"memories": how many memory rows were updated}."""
    updated = 0
    while True:
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT EXISTS (SELECT 1 FROM {PENDING_TABLE})")
            if not cursor.fetchone()[0]:
                return {"memories": updated}
        updated += _apply_access_batch()
