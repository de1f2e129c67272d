"""A btree on the `Memory` label's graph id, so each hop reaches its end vertex by index."""

from django.db import migrations

SQL = 'CREATE UNIQUE INDEX IF NOT EXISTS age_memory_graphid ON memsite."Memory" USING btree (id)'


class Migration(migrations.Migration):
    dependencies = [("graph", "0002_age_labels")]

    operations = [migrations.RunSQL(SQL, reverse_sql=migrations.RunSQL.noop)]
