"""A memory's versions: every memory it replaced and every memory that replaced it, following the
INVALIDATED_BY associations both ways (A → B: B replaced A) in one recursive query."""

from django.db import connection

from memories.models import Memory

MAX_VERSIONS = 50

# Walks the links both ways from the memory, breadth first. Cycles are refused when a link is
# written; the walk keeps each memory once (UNION on the id alone) and stops at the first
# MAX_VERSIONS memories it reaches, since PostgreSQL evaluates a recursive query only as far as its
# reader asks. The reviewer who decided a supersession is the one who resolved a finding of the
# pair with an action that made the link.
VERSIONS_SQL = """
WITH RECURSIVE chain(id) AS (
    SELECT %(memory)s::uuid
    UNION
    SELECT CASE WHEN a.source_id = c.id THEN a.target_id ELSE a.source_id END
    FROM chain c
    JOIN graph_association a
      ON a.relation_type = 'INVALIDATED_BY' AND (a.source_id = c.id OR a.target_id = c.id)
),
members AS (SELECT id FROM chain LIMIT %(limit)s)
SELECT a.source_id, a.target_id, a.origin, a.properties->>'reason', a.created_at,
       (SELECT u.username FROM quality_inconsistency i JOIN auth_user u ON u.id = i.resolved_by_id
        WHERE (i.memory1_id, i.memory2_id) IN ((a.source_id, a.target_id), (a.target_id, a.source_id))
          AND i.status = 'resolved' AND i.resolution IN ('link_invalidated_by', 'apply')
        ORDER BY i.resolved_at DESC LIMIT 1)
FROM graph_association a
WHERE a.relation_type = 'INVALIDATED_BY'
  AND a.source_id IN (SELECT id FROM members) AND a.target_id IN (SELECT id FROM members)
"""


def memory_versions(memory):
    """The memory's versions oldest first (by valid_from), each with the link that ended it: who
    replaced it, when the link was made, its origin, reason and the reviewer who decided. Empty
    when the memory never replaced nor was replaced by another."""
    with connection.cursor() as cursor:
        cursor.execute(VERSIONS_SQL, {"memory": memory.pk, "limit": MAX_VERSIONS})
        links = cursor.fetchall()
    if not links:
        return []
    ended = {
        source: {
            "replaced_by": target,
            "origin": origin,
            "reason": reason,
            "linked_at": at,
            "decided_by": who,
        }
        for source, target, origin, reason, at, who in links
    }
    ids = set(ended) | {row["replaced_by"] for row in ended.values()}
    rows = (
        Memory.objects.filter(pk__in=ids)
        .only("id", "content", "valid_from", "valid_until", "superseded_by", "archived_at", "created_at")
        .order_by("valid_from", "created_at")
    )
    return [
        {"memory": version, "current": version.pk == memory.pk, "ended": ended.get(version.pk)}
        for version in rows
    ]
