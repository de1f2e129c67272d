"""Writes to memories. Each public function is one transaction.

A stored memory gets its vector, its graph vertex and its first quality evaluation in the same
transaction as its row, so none of them can exist without the others.
"""

import hashlib
import time
import unicodedata

from django.db import connection, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from graph import age, enrichment
from memories import embeddings
from memories.models import Memory
from memories.queries import NOT_FOUND
from memsite import jobs
from memsite.db import retry_on_conflict
from memsite.errors import Conflict, NotFound
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


def _live_duplicates(owner, hashes):
    """{content_hash: memory} for the owner's live memories with one of these hashes."""
    found = Memory.objects.filter(owner=owner, content_hash__in=set(hashes), archived_at__isnull=True)
    return {memory.content_hash: memory for memory in found.order_by("created_at", "sequence")}


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
        Memory.objects.filter(owner_id=memory.owner_id, content_hash=digest, archived_at__isnull=True)
        .exclude(pk=memory.pk)
        .values_list("pk", flat=True)
        .first()
    )
    if twin is not None:
        raise Conflict(f"A live memory with this content already exists: {twin}")


def _refresh_quality(memories):
    """Copy the values evaluate_memories wrote back onto the in-memory objects."""
    fresh = Memory.objects.filter(pk__in=[memory.pk for memory in memories]).values("pk", *QUALITY_FIELDS)
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
    _refresh_quality(memories)
    enrichment.schedule([memory.pk for memory in memories])


@retry_on_conflict
def store_memories(owner, items):
    """Store validated items; answer [(memory, duplicate)] in the order of `items`.

    Content equal (by hash) to one of the owner's live memories, or to an earlier item of the
    same call, is not stored again: its entry is the existing memory with duplicate=True. Vectors
    are computed in one batch before the transaction, for the items not already known.
    """
    hashes = [content_hash(item["content"]) for item in items]
    known = _live_duplicates(owner, hashes)
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
                updated_at=created_at,
                provenance_updated_at=created_at,
            )
            new.append(memory)
            known[digest] = memory
        if new:
            Memory.objects.bulk_create(new)
            _stored(new)
    created = {memory.content_hash for memory in new}
    results, seen = [], set()
    for digest in hashes:
        results.append((known[digest], digest not in created or digest in seen))
        seen.add(digest)
    return results


def store_memory(owner, item):
    """Store one validated item; answer (memory, duplicate)."""
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
        for name in ("tags", "importance", "metadata", "memory_type", "created_at"):
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
        age.remove_memory_vertices([memory.pk])
        Memory.objects.filter(pk=memory.pk).delete()


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
        live = memories.filter(archived_at__isnull=True)
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
        archived = memories.filter(archived_at__isnull=False)
        hashes_by_owner = {}
        for owner_id, digest in archived.values_list("owner_id", "content_hash").order_by("owner_id"):
            hashes_by_owner.setdefault(owner_id, []).append(digest)
        for owner_id, hashes in hashes_by_owner.items():  # as a store of the same text would
            _lock_hashes(owner_id, hashes)
        latest = archived.order_by("owner_id", "content_hash", "-archived_at").distinct(
            "owner_id", "content_hash"
        )
        live_twin = Memory.objects.filter(
            owner=OuterRef("owner"), content_hash=OuterRef("content_hash"), archived_at__isnull=True
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
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                REEMBED_SQL,
                [[pk for pk, _ in batch], [embeddings.vector_literal(vector) for vector in vectors]],
            )
        done += len(batch)
        last_id = batch[-1][0]
        if progress:
            progress(len(batch))
    return {"reembedded": done, "seconds": round(time.perf_counter() - started, 3), "provider": provider.name}
