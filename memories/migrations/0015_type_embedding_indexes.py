"""An HNSW index per memory type, over live memories — in the model's state only.

A type-filtered recall walked the index over every memory, passing over the other types'
memories first; when the type's memories lay far from the query it reached its scan limit and
ranked the type's memories exactly. The indexes that this migration first built concurrently made
that walk short, but each store then entered two HNSW indexes and batch stores fell below their
target: migration 0016 drops them where they were built, and this migration no longer builds them.
"""

import pgvector.django.indexes
from django.conf import settings
from django.db import migrations, models

TYPES = ["Memory", "Decision", "Pattern", "Preference", "Style", "Habit", "Insight", "Context"]


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0014_questions_and_answers"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddIndex(
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
        )
    ]
