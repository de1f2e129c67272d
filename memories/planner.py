"""The planner's statistics of the memory table, kept in step with owners that grow fast.

PostgreSQL plans every search of an owner's memories from the table's statistics, which
autovacuum refreshes once a tenth of the table has changed. An owner they do not know yet (a new
user beside older ones) is taken for a single row: recall then gathers its candidates by reading
all of that owner's memories through an index on the owner (an exact sort by distance, a text
match on each row) instead of probing the vector and text indexes, and a store looks for its
duplicate the same way. Beside a million older memories, that lasts for a new owner's first
hundred thousand. So each enrichment job compares the planner's estimate for the owners of its
memories with the memories there, and queues an ANALYZE of the table when one has outgrown it.
"""

from django.db import connection

from memsite import jobs

# An owner with more than GROWTH × its estimate + FLOOR memories has outgrown its statistics.
GROWTH = 3
FLOOR = 1_000
# Owners estimated at this many memories or more are not counted: they already plan with indexes.
COUNTED_BELOW = 10_000

TABLE_ROWS_SQL = "SELECT reltuples FROM pg_class WHERE oid = 'memories_memory'::regclass"
OWNERS_SQL = "SELECT DISTINCT owner_id FROM memories_memory WHERE id = ANY(%s::uuid[])"
ESTIMATE_SQL = "EXPLAIN (FORMAT JSON) SELECT 1 FROM memories_memory WHERE owner_id = %s"
COUNT_SQL = "SELECT count(*) FROM (SELECT 1 FROM memories_memory WHERE owner_id = %s LIMIT %s) s"


def outgrown(memory_ids):
    """Whether an owner of these memories has more memories than the planner allows for."""
    with connection.cursor() as cursor:
        cursor.execute(TABLE_ROWS_SQL)
        (table_rows,) = cursor.fetchone()
        cursor.execute(OWNERS_SQL, [[str(pk) for pk in memory_ids]])
        for (owner_id,) in cursor.fetchall():
            cursor.execute(ESTIMATE_SQL, [owner_id])
            estimate = cursor.fetchone()[0][0]["Plan"]["Plan Rows"]
            bound = GROWTH * estimate + FLOOR
            # In a table no larger than the bound, autovacuum refreshes the statistics sooner.
            if estimate >= COUNTED_BELOW or bound >= table_rows:
                continue
            cursor.execute(COUNT_SQL, [owner_id, bound + 1])
            if cursor.fetchone()[0] > bound:
                return True
    return False


def queue_analyze():
    """Queue one ANALYZE of the memory table (none when one is already waiting)."""
    from memories.tasks import analyze_memories as task

    jobs.defer_unless_waiting(task)


def analyze():
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE memories_memory")
