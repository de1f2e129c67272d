"""Reads of the graph: traversal on AGE (directed, hop by hop, both directions), stats, recall expansion.

Every traversal starts from memories the owner has been checked to own; edges only ever join two
memories of one owner, and every memory row is loaded again through the owner, so nothing of
another user is ever reached.
"""

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Avg, Count

from graph import age, entities
from graph.api.serializers import edge_data
from graph.models import (
    AUTHORABLE_RELATIONS,
    HIDDEN_RELATIONS,
    SYSTEM_RELATIONS,
    Association,
    EntityAlias,
)
from memories.models import LIVE, Memory
from memsite import replicas
from memsite.errors import NotFound

MAX_FRONTIER = 500
SCORED_PER_RESULT = 4
NODE_FIELDS = [
    "id",
    "content",
    "tags",
    "memory_type",
    "importance",
    "quality_score",
    "created_at",
    "archived_at",
]


@dataclass
class TraversalParams:
    depth: int = 1
    types: set = field(default_factory=set)
    min_strength: float = 0.0
    limit: int = 5


@dataclass
class SnapshotParams:
    limit: int = 500
    types: set = field(default_factory=set)
    min_importance: float = 0.0


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    relation_type: str
    strength: float

    @property
    def key(self):
        return (self.source, self.target, self.relation_type)

    def seen_from(self, memory_id, association):
        """The edge as one entry of a result's `relations` list, with its stored `association`
        (from `described`)."""
        outgoing = self.source == memory_id
        return {
            "type": self.relation_type,
            "strength": self.strength,
            "direction": "outgoing" if outgoing else "incoming",
            "memory_id": self.target if outgoing else self.source,
            "association": association,
        }


DESCRIBED = """
SELECT a.* FROM graph_association a
JOIN unnest(%s::uuid[], %s::uuid[], %s::text[]) AS k(source_id, target_id, relation_type)
USING (source_id, target_id, relation_type)
"""


def described(edges):
    """{edge key: its stored Association} for the followed `edges`, read in one statement by the
    unique edge index; an edge removed since it was followed is not there. Reads answer each in
    the one representation of an edge (graph.api.serializers)."""
    if not edges:
        return {}
    keys = list(zip(*(edge.key for edge in edges), strict=True))
    rows = Association.objects.raw(DESCRIBED, [list(keys[0]), list(keys[1]), list(keys[2])])
    return {(str(row.source_id), str(row.target_id), row.relation_type): row for row in rows}


def traverse(seed_ids, max_hops, min_strength=0.0, types=None, per_node_limit=None, include_hidden=True):
    """Follow edges from the seeds in both directions, one Cypher statement per hop.

    Returns (edges, depth): every edge followed, and the hop at which each memory id was first
    reached (seeds at 0). `per_node_limit` keeps the strongest edges of each frontier memory.
    """
    depth = {str(seed): 0 for seed in seed_ids}
    frontier = list(depth)
    edges = {}
    with age.nested_loop_plan():
        for hop in range(1, max_hops + 1):
            if not frontier:
                break
            found = [
                (seed, other, Edge(*((seed, other) if outgoing else (other, seed)), kind, strength))
                for seed, other, kind, strength, outgoing in age.hop(frontier, min_strength)
            ]
            found = [
                row
                for row in found
                if (not types or row[2].relation_type in types)
                and (include_hidden or row[2].relation_type not in HIDDEN_RELATIONS)
            ]
            if per_node_limit:
                by_seed = defaultdict(list)
                for row in found:
                    by_seed[row[0]].append(row)
                found = [
                    row
                    for rows in by_seed.values()
                    for row in sorted(rows, key=lambda r: -r[2].strength)[:per_node_limit]
                ]
            frontier = []
            for _, other, edge in found:
                edges[(edge.source, edge.target, edge.relation_type)] = edge
                if other not in depth and len(frontier) < MAX_FRONTIER:
                    depth[other] = hop
                    frontier.append(other)
    return list(edges.values()), depth


def get_association_for_user(owner_id, association_id):
    """The owner's association with this id; another owner's, or none, is "Association not found"."""
    association = Association.objects.filter(pk=association_id, source__owner_id=owner_id).first()
    if association is None:
        raise NotFound("Association not found")
    return association


def _owned(owner_id, memory_id):
    if not Memory.objects.filter(pk=memory_id, owner_id=owner_id).exists():
        raise NotFound("Memory not found")


def _nodes(owner_id, ids, extra=None):
    rows = Memory.objects.filter(owner_id=owner_id, pk__in=list(ids)).values(*NODE_FIELDS)
    nodes = {}
    for row in rows:
        memory_id = str(row.pop("id"))
        row["type"] = row.pop("memory_type")
        nodes[memory_id] = {"id": memory_id, **row, **(extra or {}).get(memory_id, {})}
    return nodes


def neighbors(owner_id, memory_id, params):
    """The memories within `params.depth` hops of one memory, with the edges between them."""
    _owned(owner_id, memory_id)
    root = str(memory_id)
    edges, depth = traverse([root], params.depth, params.min_strength, params.types)
    reached = {memory: {"depth": hop} for memory, hop in depth.items() if memory != root}
    nodes = _nodes(owner_id, reached, reached)
    kept = [edge for edge in edges if {edge.source, edge.target} <= nodes.keys() | {root}]
    associations = described(kept)
    ordered = sorted(nodes.values(), key=lambda node: (node["depth"], -node["importance"], node["id"]))
    return {
        "memory_id": root,
        "depth": params.depth,
        "count": len(ordered),
        "nodes": ordered,
        "edges": [edge_data(associations[edge.key]) for edge in kept if edge.key in associations],
    }


def related(owner_id, memory_id, params):
    """The `limit` memories most strongly related to one memory (nearest hop first)."""
    _owned(owner_id, memory_id)
    root = str(memory_id)
    edges, depth = traverse([root], params.depth, params.min_strength, params.types, include_hidden=False)
    best = {}
    for edge in edges:
        for end, other in ((edge.source, edge.target), (edge.target, edge.source)):
            if other == root or depth.get(end, 99) + 1 != depth.get(other):
                continue
            entry = {"edge": edge, "via": end, "depth": depth[other]}
            if other not in best or edge.strength > best[other]["edge"].strength:
                best[other] = entry
    associations = described([entry["edge"] for entry in best.values()])
    nodes = _nodes(owner_id, best)
    results = sorted(
        (
            {
                "memory": nodes[memory],
                "relation_type": link["edge"].relation_type,
                "strength": link["edge"].strength,
                "depth": link["depth"],
                "via": link["via"],
                "association": edge_data(associations[link["edge"].key]),
            }
            for memory, link in best.items()
            if memory in nodes and link["edge"].key in associations
        ),
        key=lambda item: (item["depth"], -item["strength"], item["memory"]["id"]),
    )[: params.limit]
    return {"memory_id": root, "count": len(results), "related": results}


def snapshot(owner_id, params):
    """The owner's most important live memories and the edges among them, for drawing."""
    memories = (
        Memory.objects.filter(LIVE, owner_id=owner_id, importance__gte=params.min_importance)
        .order_by("-importance", "-created_at")
        .values(*NODE_FIELDS)[: params.limit]
    )
    nodes = {}
    for row in memories:
        memory_id = str(row.pop("id"))
        row["type"] = row.pop("memory_type")
        nodes[memory_id] = {"id": memory_id, **row}
    edges, _ = traverse(list(nodes), 1, types=params.types)
    edges = [edge for edge in edges if edge.source in nodes and edge.target in nodes]
    associations = described(edges)
    kept = [edge_data(associations[edge.key]) for edge in edges if edge.key in associations]
    return {
        "node_count": len(nodes),
        "edge_count": len(kept),
        "nodes": list(nodes.values()),
        "edges": kept,
    }


def stats(owner_id):
    """Counts of the owner's graph: memories, associations by type and origin, best connected."""
    associations = Association.objects.filter(source__owner_id=owner_id)
    by_type = {
        row["relation_type"]: {"count": row["count"], "average_strength": round(row["average"], 4)}
        for row in associations.values("relation_type")
        .annotate(count=Count("id"), average=Avg("strength"))
        .order_by("relation_type")
    }
    by_origin = dict(associations.values_list("origin").annotate(count=Count("id")).order_by("origin"))
    with replicas.read_connection().cursor() as cursor:
        cursor.execute(
            """
            SELECT memory_id, count(*) FROM (
                SELECT a.source_id AS memory_id FROM graph_association a
                JOIN memories_memory m ON m.id = a.source_id WHERE m.owner_id = %s
                UNION ALL
                SELECT a.target_id FROM graph_association a
                JOIN memories_memory m ON m.id = a.target_id WHERE m.owner_id = %s
            ) ends GROUP BY memory_id ORDER BY count(*) DESC, memory_id LIMIT 10
            """,
            [owner_id, owner_id],
        )
        top = [{"memory_id": str(memory_id), "degree": degree} for memory_id, degree in cursor.fetchall()]
    memory_count = Memory.objects.filter(owner_id=owner_id).count()
    total = sum(entry["count"] for entry in by_type.values())
    return {
        "memory_count": memory_count,
        "association_count": total,
        "average_degree": round(2 * total / memory_count, 4) if memory_count else 0.0,
        "by_type": by_type,
        "by_origin": by_origin,
        "most_connected": top,
    }


def relation_types():
    """The public relation types and their properties (DISCOVERED stays hidden)."""
    relations = [
        {"type": name, "properties": properties, "authorable": name in AUTHORABLE_RELATIONS}
        for name, properties in {**AUTHORABLE_RELATIONS, **SYSTEM_RELATIONS}.items()
        if name not in HIDDEN_RELATIONS
    ]
    return {"count": len(relations), "relations": relations}


ALIAS_LIST_LIMIT = 1000


def entity_aliases(owner_id):
    """The owner's entity aliases (first names for full names), by alias, at most ALIAS_LIST_LIMIT."""
    aliases = EntityAlias.objects.filter(owner_id=owner_id)
    rows = aliases.order_by("alias").values("alias", "entity")[:ALIAS_LIST_LIMIT]
    return {
        "count": aliases.count(),
        "aliases": [
            {"alias": entities.tag(row["alias"]), "entity": entities.tag(row["entity"])} for row in rows
        ],
    }


# --- recall expansion (SPEC section 5) ---


def entity_memories(owner_id, query, exclude, limit, include_archived=False):
    """The owner's memories tagged with a word (or entity) of the query, or with the entity a
    word of the query is an alias of ("Zoë" for "Zoë O'Brien"), most important first."""
    tags = entities.query_tags(query)
    if not tags or limit <= 0:
        return []
    words = [tag.removeprefix(entities.PREFIX) for tag in tags if tag.startswith(entities.PREFIX)]
    aliased = EntityAlias.objects.filter(owner_id=owner_id, alias__in=words).values_list("entity", flat=True)
    tags += [entities.tag(entity) for entity in aliased]
    memories = Memory.objects.filter(owner_id=owner_id, tags__overlap=tags).exclude(pk__in=exclude)
    if not include_archived:
        memories = memories.filter(LIVE)
    return [
        str(pk) for pk in memories.order_by("-importance", "-created_at").values_list("pk", flat=True)[:limit]
    ]


def _nearest_first(edges, depth, seeds, limit):
    """The reached memories that are not seeds, nearest hop first, then by strongest edge."""
    strongest = defaultdict(float)
    for edge in edges:
        for end in (edge.source, edge.target):
            strongest[end] = max(strongest[end], edge.strength)
    reached = sorted(
        (memory for memory in depth if memory not in seeds),
        key=lambda memory: (depth[memory], -strongest[memory], memory),
    )
    return reached[:limit]


def expansion(owner_id, seed_ids, options):
    """The graph step of recall: which memories the seeds lead to, and over which edges.

    Answers (edges, entity_ids, reached_ids): the edges followed from the seeds and from the
    memories tagged with an entity of the query (when `expand_entities`), those entity memories,
    and the memories reached over the edges — at most SCORED_PER_RESULT × `expansion_limit`,
    nearest hop first. Nothing is scored here: recall scores every memory the same way.
    """
    entities = []
    if options.expand_entities and options.query:
        entities = entity_memories(
            owner_id, options.query, seed_ids, options.expansion_limit, options.include_archived
        )
    edges, depth = traverse(
        [*seed_ids, *entities],
        options.max_hops,
        options.expand_min_strength,
        per_node_limit=options.relation_limit,
        include_hidden=False,
    )
    reached = _nearest_first(
        edges, depth, {*seed_ids, *entities}, SCORED_PER_RESULT * options.expansion_limit
    )
    return edges, entities, reached
