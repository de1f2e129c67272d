"""Reads of the graph: traversal on AGE (directed, hop by hop, both directions), stats, recall expansion.

Every traversal starts from memories the owner has been checked to own; edges only ever join two
memories of one owner, and every memory row is loaded again through the owner, so nothing of
another user is ever reached.
"""

import re
from collections import defaultdict
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connection
from django.db.models import Avg, Count

from graph import age
from graph.models import (
    AUTHORABLE_RELATIONS,
    HIDDEN_RELATIONS,
    RELATION_PROPERTIES,
    SYSTEM_RELATIONS,
    Association,
)
from memories import recall
from memories.models import Memory
from memsite.errors import Invalid, NotFound
from memsite.validation import query_float, query_int

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


def _types(query, name):
    """Relation types from a comma list (or repeated parameter), upper-cased and checked."""
    values = [part.strip().upper() for raw in query.getlist(name) for part in raw.split(",") if part.strip()]
    unknown = [value for value in values if value not in RELATION_PROPERTIES]
    if unknown:
        raise Invalid(f"Relation type must be one of {sorted(RELATION_PROPERTIES)}")
    return set(values)


@dataclass
class TraversalParams:
    depth: int = 1
    types: set = field(default_factory=set)
    min_strength: float = 0.0
    limit: int = 5

    @classmethod
    def from_query(cls, query, depth_name, types_name="types", with_limit=False):
        return cls(
            depth=query_int(query, depth_name, 1, 1, 3),
            types=_types(query, types_name),
            min_strength=query_float(query, "min_strength", 0.0),
            limit=query_int(query, "limit", 5, 1, 100) if with_limit else 5,
        )


@dataclass
class SnapshotParams:
    limit: int = 500
    types: set = field(default_factory=set)
    min_importance: float = 0.0

    @classmethod
    def from_query(cls, query):
        return cls(
            limit=query_int(query, "limit", 500, 1, 5000),
            types=_types(query, "types"),
            min_importance=query_float(query, "min_importance", 0.0),
        )


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    relation_type: str
    strength: float

    def as_dict(self):
        return {
            "source": self.source,
            "target": self.target,
            "type": self.relation_type,
            "strength": self.strength,
        }

    def seen_from(self, memory_id):
        """The edge as one entry of a result's `relations` list."""
        outgoing = self.source == memory_id
        return {
            "type": self.relation_type,
            "strength": self.strength,
            "direction": "outgoing" if outgoing else "incoming",
            "memory_id": self.target if outgoing else self.source,
        }


def traverse(seed_ids, max_hops, min_strength=0.0, types=None, per_node_limit=None, include_hidden=True):
    """Follow edges from the seeds in both directions, one directed Cypher hop at a time.

    Returns (edges, depth): every edge followed, and the hop at which each memory id was first
    reached (seeds at 0). `per_node_limit` keeps the strongest edges of each frontier memory.
    """
    depth = {str(seed): 0 for seed in seed_ids}
    frontier = list(depth)
    edges = {}
    for hop in range(1, max_hops + 1):
        if not frontier:
            break
        found = [
            (seed, other, Edge(seed, other, kind, strength))
            for seed, other, kind, strength in age.step(frontier, "out", min_strength)
        ] + [
            (seed, other, Edge(other, seed, kind, strength))
            for seed, other, kind, strength in age.step(frontier, "in", min_strength)
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
    ordered = sorted(nodes.values(), key=lambda node: (node["depth"], -node["importance"], node["id"]))
    return {
        "memory_id": root,
        "depth": params.depth,
        "count": len(ordered),
        "nodes": ordered,
        "edges": [edge.as_dict() for edge in kept],
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
            entry = {**edge.seen_from(end), "via": end, "depth": depth[other]}
            if other not in best or entry["strength"] > best[other]["strength"]:
                best[other] = entry
    nodes = _nodes(owner_id, best)
    results = sorted(
        (
            {
                "memory": nodes[memory],
                "relation_type": link["type"],
                "strength": link["strength"],
                "depth": link["depth"],
                "via": link["via"],
            }
            for memory, link in best.items()
            if memory in nodes
        ),
        key=lambda item: (item["depth"], -item["strength"], item["memory"]["id"]),
    )[: params.limit]
    return {"memory_id": root, "count": len(results), "related": results}


def snapshot(owner_id, params):
    """The owner's most important live memories and the edges among them, for drawing."""
    memories = (
        Memory.objects.filter(
            owner_id=owner_id, archived_at__isnull=True, importance__gte=params.min_importance
        )
        .order_by("-importance", "-created_at")
        .values(*NODE_FIELDS)[: params.limit]
    )
    nodes = {}
    for row in memories:
        memory_id = str(row.pop("id"))
        row["type"] = row.pop("memory_type")
        nodes[memory_id] = {"id": memory_id, **row}
    edges, _ = traverse(list(nodes), 1, types=params.types)
    kept = [edge.as_dict() for edge in edges if edge.source in nodes and edge.target in nodes]
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
    with connection.cursor() as cursor:
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


# --- recall expansion (SPEC section 5) ---

WORD = re.compile(r"[^\W_]+(?:[-_][^\W_]+)*")


def query_entity_tags(query):
    """Tags a query may name: its words, adjacent word pairs joined by '-', and their entity: forms."""
    words = [word for word in WORD.findall(query.casefold()) if len(word) > 1]
    names = set(words) | {f"{a}-{b}" for a, b in zip(words, words[1:], strict=False)}
    return sorted(names | {f"entity:{name}" for name in names})


def entity_memories(owner_id, query, exclude, limit, include_archived=False):
    """The owner's memories tagged with a word (or entity) of the query, most important first."""
    tags = query_entity_tags(query)
    if not tags or limit <= 0:
        return []
    memories = Memory.objects.filter(owner_id=owner_id, tags__overlap=tags).exclude(pk__in=exclude)
    if not include_archived:
        memories = memories.filter(archived_at__isnull=True)
    return [
        str(pk) for pk in memories.order_by("-importance", "-created_at").values_list("pk", flat=True)[:limit]
    ]


SCORE_EXPANDED = """
SELECT {columns},
       {vector} AS vector,
       {keyword} AS keyword,
       {tag} AS tag,
       {recency} AS recency
FROM memories_memory m
WHERE m.id = ANY(%(ids)s::uuid[]) AND {filters}
"""
KEYWORD = """COALESCE(ts_rank_cd(m.search_vector, (
    SELECT array_to_string(array_agg(quoted), ' | ')::tsquery FROM (
        SELECT {quoted} AS quoted
        FROM unnest(to_tsvector(%(config)s::regconfig, regexp_replace(%(query)s, %(cjk)s, ' \\1 ', 'g')))
        LIMIT %(max_terms)s) lexemes), 32), 0)"""


def _score_rows(user, ids, options, vector):
    """Vector, keyword, tag and recency of the expanded memories, as recall computes them.

    The recall's own filters (owner, archived, tags, type, dates, quality) apply to them too.
    """
    if not ids:
        return {}
    has_query = bool(options.query and vector)
    sql = SCORE_EXPANDED.format(
        columns=recall.MEMORY_COLUMNS,
        vector="GREATEST(0, 1 - (m.embedding <=> %(vector)s::vector))" if has_query else "0.0::float",
        keyword=KEYWORD.format(quoted=recall.QUOTED_LEXEME) if has_query else "0.0::float",
        tag=recall._tag_score(options),
        recency=recall.RECENCY,
        filters=recall._filters(options),
    )
    params = {**recall._params(user, options, vector), "ids": list(ids)}
    memories = Memory.objects.raw(sql, params)
    return {str(memory.pk): memory for memory in memories}


def _relation_scores(edges, importance):
    """Σ(strength × importance of the memory at the other end) per memory, capped at 1."""
    scores, relations = defaultdict(float), defaultdict(list)
    for edge in edges:
        for end, other in ((edge.source, edge.target), (edge.target, edge.source)):
            if end in importance and other in importance:
                scores[end] += edge.strength * importance[other]
                relations[end].append(edge.seen_from(end))
    return {memory: min(1.0, score) for memory, score in scores.items()}, relations


def _worth_scoring(edges, depth, seed_ids, entities, options):
    """The reached memories to score: entity memories, then the nearest and most strongly linked.

    Only `expansion_limit` of them can be returned, so at most SCORED_PER_RESULT times as many are
    scored (nearest hop first, then strongest incident edge).
    """
    strongest = defaultdict(float)
    for edge in edges:
        for end in (edge.source, edge.target):
            strongest[end] = max(strongest[end], edge.strength)
    seeds = set(seed_ids) | set(entities)
    reached = sorted(
        (memory for memory in depth if memory not in seeds),
        key=lambda memory: (depth[memory], -strongest[memory], memory),
    )
    return entities + reached[: SCORED_PER_RESULT * options.expansion_limit]


def expand_recall(user, seeds, options, vector=None):
    """The graph step of recall: see `memories.recall.expand_results`, which calls this."""
    summary = {
        "enabled": options.expand_relations,
        "expand_entities": options.expand_entities,
        "seed_count": len(seeds),
        "entity_count": 0,
        "expanded_count": 0,
        "edges_followed": 0,
        "relation_limit": options.relation_limit,
        "expansion_limit": options.expansion_limit,
        "max_hops": options.max_hops,
        "min_strength": options.expand_min_strength,
        "min_importance": options.expand_min_importance,
    }
    if not (options.expand_relations or options.expand_entities) or options.expansion_limit == 0:
        return [], summary
    seed_ids = [str(result.memory.pk) for result in seeds]
    entities = []
    if options.expand_entities and options.query:
        entities = entity_memories(
            user.pk, options.query, seed_ids, options.expansion_limit, options.include_archived
        )
    edges, depth = traverse(
        seed_ids + entities,
        options.max_hops,
        options.expand_min_strength,
        per_node_limit=options.relation_limit,
        include_hidden=False,
    )
    rows = _score_rows(user, _worth_scoring(edges, depth, seed_ids, entities, options), options, vector)
    rows = {
        memory: row
        for memory, row in rows.items()
        if memory in entities or row.importance >= options.expand_min_importance
    }
    importance = {str(result.memory.pk): result.memory.importance for result in seeds}
    importance.update({memory: row.importance for memory, row in rows.items()})
    scores, relations = _relation_scores(edges, importance)
    weight = settings.RECALL_WEIGHTS["relation"]
    for result in seeds:
        memory = str(result.memory.pk)
        result.relations = relations.get(memory, [])
        delta = weight * scores.get(memory, 0.0) - weight * result.score_components["relation"]
        result.score_components["relation"] = scores.get(memory, 0.0)
        result.final_score += delta
        if hasattr(result, "rank_score"):
            result.rank_score += delta * (1 - recall.QUALITY_RANK_WEIGHT if options.rank_by_quality else 1)
    expanded = []
    for memory, row in rows.items():
        components = {
            "vector": row.vector,
            "keyword": row.keyword,
            "relation": scores.get(memory, 0.0),
            "tag": row.tag,
            "importance": row.importance,
            "confidence": row.confidence,
            "recency": row.recency,
            "context": 0.0,
        }
        result = recall.RecallResult(
            memory=row,
            score_components=components,
            final_score=recall.final_score(components),
            match_type="entity" if memory in entities else "relation",
            relations=relations.get(memory, []),
        )
        result.rank_score = recall.rank_score(result, options)
        expanded.append(result)
    expanded.sort(key=lambda result: result.rank_score, reverse=True)
    expanded = expanded[: options.expansion_limit]
    summary.update(entity_count=len(entities), expanded_count=len(expanded), edges_followed=len(edges))
    return expanded, summary
