"""Writes to the association table and its AGE mirror, always in one transaction together."""

import json
from collections import defaultdict
from dataclasses import dataclass, field

from django.db import connection, transaction
from django.utils import timezone

from graph import age
from graph.models import AUTHORABLE_RELATIONS, Association, DiscoveryReview, Origin
from graph.signals import supersession_changed
from memsite.db import retry_on_conflict

SUPERSESSION = "INVALIDATED_BY"

# Lock the memories a write links against deletion, in id order: a concurrent delete (which locks
# the row for update) either finished first, and the upsert below no longer sees the memory, or
# waits until the edges are written and then removes them with the vertex. Updates of the
# memories (another enrichment tagging them) neither wait for this nor make it wait.
LOCK_MEMORIES_SQL = """
SELECT id FROM memories_memory WHERE id = ANY(%s::uuid[]) AND owner_id = %s ORDER BY id FOR KEY SHARE
"""

UPSERT_SQL = """
INSERT INTO graph_association
    (source_id, target_id, relation_type, strength, properties, origin, created_at, updated_at)
SELECT v.source, v.target, v.relation_type, v.strength, v.properties, %(origin)s, %(now)s, %(now)s
FROM unnest(%(sources)s::uuid[], %(targets)s::uuid[], %(types)s::text[], %(strengths)s::float8[],
            %(properties)s::jsonb[]) AS v(source, target, relation_type, strength, properties)
JOIN memories_memory a ON a.id = v.source AND a.owner_id = %(owner)s
JOIN memories_memory b ON b.id = v.target AND b.owner_id = %(owner)s
ON CONFLICT (source_id, target_id, relation_type) DO UPDATE
SET strength = EXCLUDED.strength,
    properties = graph_association.properties || EXCLUDED.properties,
    updated_at = EXCLUDED.updated_at
RETURNING source_id, target_id, relation_type, strength, properties, updated_at
"""


@dataclass(frozen=True)
class Link:
    """One requested edge, already validated: memory ids are UUIDs, the type is known."""

    source: object
    target: object
    relation_type: str
    strength: float
    properties: dict = field(default_factory=dict)

    @property
    def key(self):
        return (str(self.source), str(self.target), self.relation_type)


def _mirror(rows):
    """MERGE the upserted table rows into the graph, one statement per relation type."""
    by_type = defaultdict(list)
    for source, target, relation_type, strength, properties, updated_at in rows:
        by_type[relation_type].append(
            {
                **(json.loads(properties) if isinstance(properties, str) else properties),
                "source": str(source),
                "target": str(target),
                "strength": strength,
                "updated_at": updated_at.isoformat(),
            }
        )
    for relation_type, edges in by_type.items():
        age.merge_edges(relation_type, edges)


@retry_on_conflict
def associate_memories(owner_id, links, origin=Origin.USER):
    """Create or update (MERGE) edges between memories of `owner_id`; return the keys that landed.

    One set-based upsert writes every row whose two memories belong to the owner, and the same
    transaction mirrors those rows into the graph. A link naming a missing or foreign memory
    simply does not land. When a batch repeats a key, the last occurrence wins.
    """
    unique = {link.key: link for link in links}
    if not unique:
        return set()
    params = {
        "origin": str(origin),
        "now": timezone.now(),
        "owner": owner_id,
        "sources": [link.source for link in unique.values()],
        "targets": [link.target for link in unique.values()],
        "types": [link.relation_type for link in unique.values()],
        "strengths": [link.strength for link in unique.values()],
        "properties": [json.dumps(link.properties) for link in unique.values()],
    }
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(LOCK_MEMORIES_SQL, [[*params["sources"], *params["targets"]], owner_id])
            cursor.execute(UPSERT_SQL, params)
            rows = cursor.fetchall()
        _mirror(rows)
        _supersession_changed([row[0] for row in rows if row[2] == SUPERSESSION])
    return {(str(row[0]), str(row[1]), row[2]) for row in rows}


def _supersession_changed(memory_ids):
    if memory_ids:
        supersession_changed.send(sender=Association, memory_ids=sorted(set(memory_ids), key=str))


@retry_on_conflict
def remove_associations(owner_id, source, target, relation_type=None):
    """Delete the edges from `source` to `target` (of one type, or all); return how many."""
    queryset = Association.objects.filter(source_id=source, target_id=target, source__owner_id=owner_id)
    if relation_type:
        queryset = queryset.filter(relation_type=relation_type)
    with transaction.atomic():
        removed = list(queryset.values_list("id", "relation_type"))
        if not removed:
            return 0
        Association.objects.filter(id__in=[pk for pk, _ in removed]).delete()
        for kind in {kind for _, kind in removed}:
            age.remove_edges(kind, [(source, target)])
        if any(kind == "DISCOVERED" for _, kind in removed):
            review_pair(source, target, DiscoveryReview.Verdict.REJECTED)
        if any(kind == SUPERSESSION for _, kind in removed):
            _supersession_changed([source])
    return len(removed)


def review_pair(source, target, verdict):
    """Remember a curator's decision on a discovered pair, so discovery leaves the pair alone."""
    first, second = sorted([source, target], key=str)
    DiscoveryReview.objects.get_or_create(memory1_id=first, memory2_id=second, defaults={"verdict": verdict})


def promote_discovered(owner_id, association_id, relation_type, strength=None, properties=None):
    """Replace one DISCOVERED association by an authored one of `relation_type`; answer its Link.

    None when the owner has no such DISCOVERED association. The pair is remembered as reviewed.
    """
    if relation_type not in AUTHORABLE_RELATIONS:
        raise ValueError(f"Relation type must be one of {sorted(AUTHORABLE_RELATIONS)}")
    with transaction.atomic():
        found = (
            Association.objects.select_for_update()
            .filter(id=association_id, relation_type="DISCOVERED", source__owner_id=owner_id)
            .values("source_id", "target_id", "strength")
            .first()
        )
        if found is None:
            return None
        source, target = found["source_id"], found["target_id"]
        Association.objects.filter(id=association_id).delete()
        age.remove_edges("DISCOVERED", [(source, target)])
        review_pair(source, target, DiscoveryReview.Verdict.PROMOTED)
        strength = found["strength"] if strength is None else strength
        link = Link(source, target, relation_type, strength, properties or {})
        associate_memories(owner_id, [link], Origin.USER)
    return link


def remove_association(owner_id, association_id):
    """Delete one association by its table id; False when the owner has no such association."""
    association = (
        Association.objects.filter(id=association_id, source__owner_id=owner_id)
        .values("source_id", "target_id", "relation_type")
        .first()
    )
    if association is None:
        return False
    return (
        remove_associations(
            owner_id,
            association["source_id"],
            association["target_id"],
            association["relation_type"],
        )
        > 0
    )


def rebuild_graph(progress=None):
    """Replace every vertex and edge of the graph with the tables' content; return the counts.

    Bulk SQL into the label tables, in one transaction, label by label (`progress(label, n)` is
    called after each).
    """
    with transaction.atomic():
        counts = age.rebuild_from_tables(progress)
    return counts
