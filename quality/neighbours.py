"""The nearest live memories of a memory within its owner, for detection and association discovery.

`FUNCTION` is created per run in pg_temp, inside the caller's transaction: a LATERAL subquery
with LIMIT is never run by parallel workers, a PARALLEL SAFE function is, so each chunk of
memories searches on every core. EXECUTE plans each call for its owner: a plan cached across
calls is planned for an average owner, scans the owner's rows and sorts them, and takes seconds
for an owner of 100,000 memories (bench/README.md, a million memories).

An owner of at most `EXACT_UP_TO` live memories (`small_owners`) compares each memory with all of
them: exact, and cheaper than the index there, whose approximate, filtered search passes over
other owners' vectors (and, before vacuum, deleted ones) and may stop before reaching them —
whatever the table's statistics lead the planner to prefer. A larger owner asks the HNSW index.

Memories at or below the distance `beyond` are skipped (in the index scan, which goes on past
them), so a caller that wants a band above near-duplicates does not spend its k on them.
"""

from memories.embeddings import exact_distance

EXACT_UP_TO = 1000

FUNCTION = f"""
CREATE OR REPLACE FUNCTION pg_temp.live_neighbours(
    query vector, owner integer, self uuid, k integer, beyond float8, exact boolean
)
RETURNS TABLE (id uuid, distance float8)
LANGUAGE plpgsql STABLE PARALLEL SAFE COST 10000 ROWS 10 AS $fn$
BEGIN
    RETURN QUERY EXECUTE format($q$
        SELECT o.id, o.embedding <=> $1 FROM memories_memory o
        WHERE o.owner_id = $2 AND o.archived_at IS NULL AND o.id <> $3 AND o.embedding <=> $1 > $5
        ORDER BY %s
        LIMIT $4
    $q$, CASE WHEN exact THEN '{exact_distance("o.embedding", "$1")}' ELSE 'o.embedding <=> $1' END)
    USING query, owner, self, k, beyond;
END
$fn$
"""

# Counted once per run and passed to the searches as an array: a temporary table would keep them
# out of parallel workers.
SMALL_OWNERS = f"""
SELECT COALESCE(array_agg(owner_id), '{{}}') FROM (
    SELECT m.owner_id FROM memories_memory m
    WHERE m.archived_at IS NULL AND (%(owner)s::integer IS NULL OR m.owner_id = %(owner)s)
    GROUP BY m.owner_id HAVING count(*) <= {EXACT_UP_TO}
) small
"""


def searched(memory, k, beyond="-1"):
    """SQL for a LATERAL call: the `k` nearest live neighbours of the memory `memory` farther than
    `beyond`; needs `%(small_owners)s` (`prepare`)."""
    return (
        f"pg_temp.live_neighbours({memory}.embedding, {memory}.owner_id, {memory}.id, {k}, {beyond}, "
        f"{memory}.owner_id = ANY(%(small_owners)s::integer[]))"
    )


def prepare(cursor, owner=None):
    """Create the function for this transaction; answer the small owners (of `owner` only, when
    given) for `%(small_owners)s`."""
    cursor.execute(FUNCTION)
    cursor.execute(SMALL_OWNERS, {"owner": owner})
    return cursor.fetchone()[0]
