"""Leave more room on memory pages for in-place (HOT) updates.

Measured at 100,000 memories: scoring writes `metadata.relevance_factors` and boost fields, so a
row grows from about 0.8 to 1.1 KB on its first consolidation. At fillfactor 40 four such rows
and their new versions no longer fit on one page, and every row that moves is inserted into the
HNSW index again (a phase then takes over a minute instead of a few seconds). At 25 they fit.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0003_hot_updates"),
    ]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE memories_memory SET (fillfactor = 25)",
            "ALTER TABLE memories_memory SET (fillfactor = 40)",
        ),
    ]
