"""Partial indexes over live memories: the HNSW index, and the owner's terms, tags and types.

Recall, discovery, detection and enrichment search live memories only. With indexes over every
row, an owner whose archive outgrew its live memories paid for both: at a million memories, the
largest owner (136,072, 62% archived by consolidation) read 7,000 heap rows for a tag to keep
2,700 live ones, and a type filter's HNSW walk crossed archived rows until its scan limit left it
with no result. Partial indexes hold live memories only (bench/README.md, a million memories).

The HNSW index becomes partial rather than gaining a partial twin: archiving a memory changes
`archived_at`, a column of the indexes' condition, so the update is no longer HOT and the new row
version enters every index whose condition it meets. Archived, it meets none of the partial ones:
archiving 10,000 memories takes 0.37 s, not the 6.2 s a full HNSW index would cost. The full GIN
indexes stay for the staff browser's and the admin's searches, which include archived memories;
recall with `include_archived` ranks the owner's memories exactly, without the HNSW index.
"""

import django.contrib.postgres.indexes
import pgvector.django.indexes
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0009_owner_tags_gin"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="memory",
            name="memory_embedding_hnsw",
        ),
        migrations.AddIndex(
            model_name="memory",
            index=pgvector.django.indexes.HnswIndex(
                condition=models.Q(("archived_at__isnull", True)),
                ef_construction=64,
                fields=["embedding"],
                m=16,
                name="memory_live_embedding_hnsw",
                opclasses=["vector_cosine_ops"],
            ),
        ),
        migrations.AddIndex(
            model_name="memory",
            index=django.contrib.postgres.indexes.GinIndex(
                condition=models.Q(("archived_at__isnull", True)),
                fields=["owner", "search_vector"],
                name="memory_live_owner_search_gin",
            ),
        ),
        migrations.AddIndex(
            model_name="memory",
            index=django.contrib.postgres.indexes.GinIndex(
                condition=models.Q(("archived_at__isnull", True)),
                fields=["owner", "tags"],
                name="memory_live_owner_tags_gin",
            ),
        ),
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(
                condition=models.Q(("archived_at__isnull", True)),
                fields=["owner", "memory_type"],
                name="memory_live_owner_type",
            ),
        ),
    ]
