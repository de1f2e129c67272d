"""Memories imported with an old timestamp count their freshness from their entry: updated_at and
provenance_updated_at are at least entered_at, and those rows are evaluated again."""

from django.db import migrations

FRESH = """
UPDATE memories_memory
SET updated_at = GREATEST(updated_at, entered_at),
    provenance_updated_at = GREATEST(provenance_updated_at, entered_at),
    quality_evaluated_at = NULL
WHERE provenance_updated_at < entered_at OR updated_at < entered_at
"""


class Migration(migrations.Migration):
    dependencies = [("memories", "0017_memory_validity")]

    operations = [migrations.RunSQL(FRESH, migrations.RunSQL.noop)]
