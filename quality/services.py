"""Writes of the quality app: evaluation on demand, detection, and reviewers' decisions on findings.

Each public function is one transaction. Resolving or dismissing a finding re-evaluates the
memories it names, because an open contradiction lowers their consistency.
"""

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from graph.services import Link, associate_memories
from memories import embeddings
from memories.models import Memory
from memories.services import archive_memory, corroborate_memory
from memsite import jobs
from memsite.errors import Conflict, Invalid, NotFound
from quality import tasks
from quality.detection import detect_inconsistencies
from quality.metrics import evaluate_memories, query_scores
from quality.models import Inconsistency, Trigger


class Action:
    KEEP_BOTH = "keep_both"
    ARCHIVE = "archive"
    MERGE = "merge"
    LINK_CONTRADICTS = "link_contradicts"
    LINK_INVALIDATED_BY = "link_invalidated_by"
    APPLY = "apply"
    ALL = [KEEP_BOTH, ARCHIVE, MERGE, LINK_CONTRADICTS, LINK_INVALIDATED_BY, APPLY]
    PAIR_ONLY = {KEEP_BOTH, MERGE, LINK_CONTRADICTS, LINK_INVALIDATED_BY, APPLY}


ARCHIVED_ELSEWHERE = "memory_archived"
DISMISSED = "dismissed"
RECLASSIFIED = "reclassified"
LINK_STRENGTH = 0.5


def evaluate_quality(owner, memory_ids=None):
    """Re-evaluate the owner's memories (all live ones when `memory_ids` is None) and store the
    scores. Ids must be the owner's: any other id answers 404 like a missing memory. Answers the
    number evaluated."""
    if memory_ids is not None:
        _check_owned(owner, memory_ids)
    with transaction.atomic():
        return evaluate_memories(
            None if memory_ids is None else sorted(set(memory_ids)), Trigger.EVALUATE, owner=owner
        )


def scores_for_query(owner, memory_ids, query):
    """The owner's memories scored relative to `query` (relevance is the cosine similarity to its
    embedding), without storing anything: a question asked once does not change later rankings."""
    _check_owned(owner, memory_ids)
    return query_scores(sorted(set(memory_ids)), embeddings.embed_query(query), owner)


def _check_owned(owner, memory_ids):
    wanted = set(memory_ids)
    owned = set(Memory.objects.filter(owner=owner, pk__in=wanted).values_list("pk", flat=True))
    if owned != wanted:
        raise NotFound("Memory not found")


def detect_for_owner(owner):
    """Run detection over one owner's memories; answers the run's summary."""
    return detect_inconsistencies(owner).as_dict()


def queue_detection(owner):
    """Queue detection over one owner's memories; answers the job id."""
    return jobs.defer(tasks.detect_inconsistencies, owner_id=owner.pk)


RECLASSIFIABLE = {Inconsistency.Type.CONTRADICTION, Inconsistency.Type.DUPLICATE}


def _close(finding, status, resolution, user, note=""):
    finding.status = status
    finding.resolution = resolution
    finding.resolved_at = timezone.now()
    finding.resolved_by = user
    finding.note = note
    finding.save(update_fields=["status", "resolution", "resolved_at", "resolved_by", "note"])


def _pair(finding):
    return [memory for memory in (finding.memory1, finding.memory2) if memory is not None]


def _chosen(finding, memory_id, default):
    """The memory of the finding that `memory_id` names, else `default`."""
    if memory_id is None:
        return default
    for memory in _pair(finding):
        if str(memory.pk) == str(memory_id):
            return memory
    raise Invalid("'memory_id' must be one of the finding's memories")


def _other(finding, memory):
    return finding.memory2 if memory.pk == finding.memory1_id else finding.memory1


def _archive(finding, memory, user):
    """Archive `memory` and close the other open findings that name it."""
    archive_memory(memory, reason=f"inconsistency {finding.pk}: {finding.type}")
    others = Inconsistency.objects.filter(Q(memory1=memory) | Q(memory2=memory), status="open").exclude(
        pk=finding.pk
    )
    affected = set(others.values_list("memory1_id", flat=True)) | set(
        others.exclude(memory2=None).values_list("memory2_id", flat=True)
    )
    others.update(
        status="resolved", resolution=ARCHIVED_ELSEWHERE, resolved_at=timezone.now(), resolved_by=user
    )
    return affected


def _merge(finding, keep, user):
    """Archive the other duplicate and count its source as corroboration of the kept one."""
    drop = _other(finding, keep)
    corroborate_memory(keep, drop.source_id or f"memory:{drop.pk}")
    return _archive(finding, drop, user)


def _link(owner, source, target, relation_type, reason):
    properties = {"reason": reason} if reason else {}
    associate_memories(owner.pk, [Link(source.pk, target.pk, relation_type, LINK_STRENGTH, properties)])


def resolve_inconsistency(finding, action, user, memory_id=None, reason=""):
    """Resolve an open finding with one of `Action.ALL`; answers the updated finding.

    - keep_both: both memories stay as they are.
    - archive: archives `memory_id` (required for a pair; a single-memory finding archives its one).
    - merge (duplicates only): keeps `memory_id` (default: the higher effective quality, then the
      older), archives the other and adds its source as a corroborating source of the kept one.
    - link_contradicts: a CONTRADICTS association from `memory_id` (default memory1) to the other.
    - link_invalidated_by: an INVALIDATED_BY association from the invalidated memory `memory_id`
      (default: the older one) to the other.
    - apply (superseded findings only): the proposed supersession, an INVALIDATED_BY association
      from the finding's older memory (memory1) to its newer one.
    `reason` is kept as the finding's note; link actions also store it as the association's
    `reason` property. Keeping both memories of a superseded finding rejects the proposal:
    detection leaves the pair alone until one changes.
    """
    if action not in Action.ALL:
        raise Invalid(f"'action' must be one of: {', '.join(Action.ALL)}")
    with transaction.atomic():
        finding = _locked(finding, Inconsistency.objects.select_related("memory1", "memory2"))
        if finding.status != Inconsistency.Status.OPEN:
            raise Conflict(f"Inconsistency is already {finding.status}")
        if action in Action.PAIR_ONLY and finding.memory2 is None:
            raise Invalid(f"'{action}' needs a finding between two memories")
        if action == Action.MERGE and finding.type != Inconsistency.Type.DUPLICATE:
            raise Invalid("'merge' applies only to duplicates")
        if action == Action.APPLY and finding.type != Inconsistency.Type.SUPERSEDED:
            raise Invalid("'apply' applies only to superseded findings")
        owner = finding.memory1.owner
        touched = {memory.pk for memory in _pair(finding)}
        if action == Action.ARCHIVE:
            if memory_id is None and finding.memory2 is not None:
                raise Invalid("'memory_id' is required: which memory to archive")
            chosen = _chosen(finding, memory_id, finding.memory1)
            touched |= _archive(finding, chosen, user)
        elif action == Action.MERGE:
            better = max(
                _pair(finding), key=lambda memory: (memory.quality_score, -memory.created_at.timestamp())
            )
            touched |= _merge(finding, _chosen(finding, memory_id, better), user)
        elif action == Action.LINK_CONTRADICTS:
            source = _chosen(finding, memory_id, finding.memory1)
            _link(owner, source, _other(finding, source), "CONTRADICTS", reason)
        elif action == Action.LINK_INVALIDATED_BY:
            older = min(_pair(finding), key=lambda memory: memory.created_at)
            source = _chosen(finding, memory_id, older)
            _link(owner, source, _other(finding, source), "INVALIDATED_BY", reason)
        elif action == Action.APPLY:
            _link(owner, finding.memory1, finding.memory2, "INVALIDATED_BY", reason)
        _close(finding, Inconsistency.Status.RESOLVED, action, user, reason)
        evaluate_memories(sorted(touched), Trigger.FINDING)
        finding.refresh_from_db()
    return finding


def _locked(finding, findings=Inconsistency.objects):
    """The finding read again and locked for this transaction; 404 when a delete of one of its
    memories took it meanwhile."""
    try:
        return findings.select_for_update(of=("self",)).get(pk=finding.pk)
    except Inconsistency.DoesNotExist:
        raise NotFound("Inconsistency not found: one of its memories was deleted meanwhile") from None


def dismiss_inconsistency(finding, user, note=""):
    """Dismiss an open finding: later detection runs leave it dismissed."""
    with transaction.atomic():
        finding = _locked(finding)
        if finding.status != Inconsistency.Status.OPEN:
            raise Conflict(f"Inconsistency is already {finding.status}")
        _close(finding, Inconsistency.Status.DISMISSED, DISMISSED, user, note)
        evaluate_memories([pk for pk in (finding.memory1_id, finding.memory2_id) if pk], Trigger.FINDING)
        finding.refresh_from_db()
    return finding


def reclassify_inconsistency(finding, new_type, user):
    """Give an open finding between two memories another type (contradiction ↔ duplicate), so
    that the other type's actions apply (e.g. merge a reworded duplicate that was filed as a
    contradiction). Answers the updated finding.

    The finding keeps its id and records the type it had; detection leaves a reclassified
    finding open and does not raise the old type for the pair again. 409 when the finding is
    closed, already of that type, or the pair already has a finding of the new type.
    """
    if new_type not in RECLASSIFIABLE:
        raise Invalid(f"'type' must be one of: {', '.join(sorted(RECLASSIFIABLE))}")
    with transaction.atomic():
        finding = _locked(finding)
        if finding.status != Inconsistency.Status.OPEN:
            raise Conflict(f"Inconsistency is already {finding.status}")
        if finding.type not in RECLASSIFIABLE or finding.memory2_id is None:
            raise Invalid("Only a contradiction or a duplicate between two memories can be reclassified")
        if finding.type == new_type:
            raise Conflict(f"The finding is already a {new_type}")
        taken = Inconsistency.objects.filter(
            type=new_type, memory1_id=finding.memory1_id, memory2_id=finding.memory2_id
        )
        if taken.exists():
            raise Conflict(f"These memories already have a {new_type} finding (#{taken.get().pk})")
        finding.reclassified_from, finding.type = finding.type, new_type
        finding.save(update_fields=["type", "reclassified_from"])
        # The old type's slot stays taken by a dismissed copy, so detection never files it again.
        Inconsistency.objects.create(
            type=finding.reclassified_from,
            memory1_id=finding.memory1_id,
            memory2_id=finding.memory2_id,
            severity=finding.severity,
            description=finding.description,
            status=Inconsistency.Status.DISMISSED,
            resolution=RECLASSIFIED,
            resolved_at=timezone.now(),
            resolved_by=user,
            note=f"reclassified as {new_type} (finding #{finding.pk})",
        )
        evaluate_memories([finding.memory1_id, finding.memory2_id], Trigger.FINDING)
        finding.refresh_from_db()
    return finding
