"""An HNSW index per memory type, over live memories.

A type-filtered recall walked the index over every memory, passing over the other types'
memories first; when the type's memories lay far from the query it reached its scan limit with
few or none of them (on the 100,000-memory bench set, 33 of 53 type-filtered recalls found 0 to 2,
and recall ranked the type's memories exactly instead, 44 to 131 ms). With an index per type the
walk finds its candidates among that type's memories (6 to 10 ms). Built concurrently: stores go
on while the indexes are built.
"""

import pgvector.django.indexes
from django.conf import settings
from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


TYPES = ["Memory", "Decision", "Pattern", "Preference", "Style", "Habit", "Insight", "Context"]


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("memories", "0014_questions_and_answers"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        AddIndexConcurrently(
            model_name="memory",
            index=pgvector.django.indexes.HnswIndex(
                condition=models.Q(("archived_at__isnull", True), ("memory_type", kind)),
                ef_construction=64,
                fields=["embedding"],
                m=16,
                name=f"memory_live_{kind.lower()}_hnsw",
                opclasses=["vector_cosine_ops"],
            ),
        )
        for kind in TYPES
    ]
