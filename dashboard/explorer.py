"""The recall explorer: what an assistant would get back from GET /recall, read-only.

It runs the API's own recall with `record_access=False`, so a curator's look changes no access
counter, and explains each result's score as weighted components.
"""

import dataclasses

from django.conf import settings
from django.utils import timezone
from pgvector.django import CosineDistance

from memories import embeddings
from memories.models import Memory
from memories.recall import COMPONENTS, recall

# "Why not?" looks this far down the ranking (the API's largest limit).
WHY_NOT_DEPTH = 100
# Components recall subtracts from the score instead of adding.
PENALTIES = {"superseded", "overtaken"}


def explore(owner, options):
    found = recall(owner, options, record_access=False)
    return {**found, "rows": score_rows(found["results"])}


def score_rows(results):
    """Each result with its weighted components as segments of one bar, scaled to the best result."""
    weights = settings.RECALL_WEIGHTS
    rows = []
    for rank, result in enumerate(results, start=1):
        values = {name: result.score_components.get(name) or 0.0 for name in COMPONENTS}
        parts = [
            (name, value, (-1 if name in PENALTIES else 1) * weights[name] * value)
            for name, value in values.items()
        ]
        total = sum(weighted for _, _, weighted in parts)
        penalties = [{"name": name, "weighted": weighted} for name, _, weighted in parts if weighted < 0]
        rows.append(
            {"rank": rank, "result": result, "parts": parts, "total": total, "penalties": penalties}
        )
    scale = max([row["total"] for row in rows] + [1e-9])
    for row in rows:
        row["segments"] = [
            {"name": name, "value": value, "weighted": weighted, "width": round(100 * weighted / scale, 2)}
            for name, value, weighted in row["parts"]
            if weighted > 0
        ]
    return rows


def why_not(owner, options, memory_id):
    """Where one memory ranks for these recall options, with its components, or why it is absent."""
    memory = Memory.objects.defer("embedding", "search_vector").filter(pk=memory_id, owner=owner).first()
    if memory is None:
        return {"memory_id": memory_id, "reasons": [f"No memory of {owner.get_username()} has this id."]}
    deeper = dataclasses.replace(options, limit=max(options.limit, WHY_NOT_DEPTH))
    rows = score_rows(recall(owner, deeper, record_access=False)["results"])
    for row in rows:
        if row["result"].memory.pk == memory.pk:
            return {"memory": memory, "row": row, "returned": row["rank"] <= options.limit}
    reasons = _excluded_by(memory, options) or [
        f"It passes the filters but ranks below the first {len(rows)} results for this query."
    ]
    similarity = None
    if options.query:
        distance = Memory.objects.filter(pk=memory.pk).annotate(
            d=CosineDistance("embedding", embeddings.embed_query(options.query))
        )
        similarity = max(0.0, 1 - distance.values_list("d", flat=True).get())
    return {"memory": memory, "reasons": reasons, "similarity": similarity}


def _excluded_by(memory, options):
    """The recall filters this memory fails (the same rules as recall's WHERE clauses)."""
    reasons = []
    if memory.archived_at is not None and not options.include_archived:
        reasons.append("It is archived (recall leaves archived memories out unless include_archived).")
    if options.types and memory.memory_type.lower() not in {kind.lower() for kind in options.types}:
        reasons.append(f"Its type {memory.memory_type} is not among the requested types.")
    if options.start and memory.created_at < options.start:
        reasons.append("It was created before the start of the time range.")
    if options.end and memory.created_at > options.end:
        reasons.append("It was created after the end of the time range.")
    if options.valid_at and not _valid(memory, options.valid_at):
        reasons.append("It was not valid at the requested moment (valid_at).")
    elif not options.include_superseded and not _valid(memory, timezone.now()):
        reasons.append("Another memory has replaced it, and superseded memories are left out.")
    if options.min_quality is not None and memory.quality_score < options.min_quality:
        reasons.append(f"Its quality {memory.quality_score:.2f} is below min_quality.")
    if options.tags and not _tags_match(memory.tags, options):
        reasons.append("Its tags do not match the requested tags.")
    if options.exclude_tags and _has_any(memory.tags, options.exclude_tags, options.tag_match == "prefix"):
        reasons.append("It carries an excluded tag.")
    return reasons


def _valid(memory, moment):
    return memory.valid_from <= moment and (memory.valid_until is None or memory.valid_until > moment)


def _has_any(tags, wanted, prefix):
    return any(tag.startswith(q) if prefix else tag == q for tag in tags for q in wanted)


def _tags_match(tags, options):
    prefix = options.tag_match == "prefix"
    if options.tag_mode == "all":
        return all(_has_any(tags, [q], prefix) for q in options.tags)
    return _has_any(tags, options.tags, prefix)
