"""Small GIN pending lists: at most 64 kB of new entries kept aside before they join the tree.

A GIN index adds new entries to a pending list, merged into its tree by vacuum or once the list
outgrows `gin_pending_list_limit` (4 MB by default), and every search of the index reads the whole
list, up to 512 pages between vacuums under a stream of stores. Each of recall's term matches
and each of enrichment's known-entity probes read it: an enrichment job of 110 memories spent
118 ms in its 1,004 tag probes over a 15-page list, 15 ms over an empty one.
The limit is a storage parameter, set in place: no index is rebuilt.
"""

from django.db import migrations, models

import django.contrib.postgres.indexes

INDEXES = [
    "memory_owner_search_gin",
    "memory_owner_tags_gin",
    "memory_live_owner_search_gin",
    "memory_live_owner_tags_gin",
]


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0012_embedding_field"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    [f"ALTER INDEX {name} SET (gin_pending_list_limit = 64)" for name in INDEXES],
                    [f"ALTER INDEX {name} RESET (gin_pending_list_limit)" for name in INDEXES],
                )
            ],
            state_operations=[
                migrations.RemoveIndex(
                    model_name="memory",
                    name="memory_owner_search_gin",
                ),
                migrations.RemoveIndex(
                    model_name="memory",
                    name="memory_owner_tags_gin",
                ),
                migrations.RemoveIndex(
                    model_name="memory",
                    name="memory_live_owner_search_gin",
                ),
                migrations.RemoveIndex(
                    model_name="memory",
                    name="memory_live_owner_tags_gin",
                ),
                migrations.AddIndex(
                    model_name="memory",
                    index=django.contrib.postgres.indexes.GinIndex(
                        condition=models.Q(("archived_at__isnull", True)),
                        fields=["owner", "search_vector"],
                        gin_pending_list_limit=64,
                        name="memory_live_owner_search_gin",
                    ),
                ),
                migrations.AddIndex(
                    model_name="memory",
                    index=django.contrib.postgres.indexes.GinIndex(
                        condition=models.Q(("archived_at__isnull", True)),
                        fields=["owner", "tags"],
                        gin_pending_list_limit=64,
                        name="memory_live_owner_tags_gin",
                    ),
                ),
                migrations.AddIndex(
                    model_name="memory",
                    index=django.contrib.postgres.indexes.GinIndex(
                        fields=["owner", "search_vector"],
                        gin_pending_list_limit=64,
                        name="memory_owner_search_gin",
                    ),
                ),
                migrations.AddIndex(
                    model_name="memory",
                    index=django.contrib.postgres.indexes.GinIndex(
                        fields=["owner", "tags"], gin_pending_list_limit=64, name="memory_owner_tags_gin"
                    ),
                ),
            ],
        ),
    ]
