"""The per-type HNSW indexes of migration 0015 removed again, where they were built.

Each store entered two HNSW indexes, the one over all live memories and its type's: batches of 500
stored 228 to 298 memories a second against 309 to 362 without them, below the 300 the service
promises. The type-filtered recalls they served find their memories anyway: when the search of
the one index finds fewer than the recall's limit, recall ranks the type's memories exactly
(recall at 100,000 memories, HTTP p95 38.5 ms without them, 28.5 ms with them).

Dropped concurrently, so stores and recalls go on meanwhile; each index if it exists, so a run
stopped halfway runs again, and a database migrated after 0015 stopped building them has none.
"""

from django.db import migrations

TYPES = ["Memory", "Decision", "Pattern", "Preference", "Style", "Habit", "Insight", "Context"]


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("memories", "0015_type_embedding_indexes")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    f"DROP INDEX CONCURRENTLY IF EXISTS memory_live_{kind.lower()}_hnsw",
                    reverse_sql=migrations.RunSQL.noop,
                )
                for kind in TYPES
            ],
            state_operations=[
                migrations.RemoveIndex(model_name="memory", name=f"memory_live_{kind.lower()}_hnsw")
                for kind in TYPES
            ],
        )
    ]
