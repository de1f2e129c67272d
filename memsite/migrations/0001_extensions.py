"""pgvector, Apache AGE and the graph `memsite`, created before any other migration.

With `age` in shared_preload_libraries, DDL such as Django's own contenttypes migrations fails
with `schema "ag_catalog" does not exist` until the extension exists, hence run_before.
"""

from django.db import migrations

GRAPH = "memsite"


class Migration(migrations.Migration):
    initial = True
    dependencies = []
    run_before = [
        ("contenttypes", "0001_initial"),
        ("auth", "0001_initial"),
    ]

    operations = [
        migrations.RunSQL(
            "CREATE EXTENSION IF NOT EXISTS vector; CREATE EXTENSION IF NOT EXISTS age;",
            reverse_sql=migrations.RunSQL.noop,
        ),
        migrations.RunSQL(
            f"SELECT ag_catalog.create_graph('{GRAPH}') "
            f"WHERE NOT EXISTS (SELECT 1 FROM ag_catalog.ag_graph WHERE name = '{GRAPH}')",
            reverse_sql=f"SELECT ag_catalog.drop_graph('{GRAPH}', true)",
        ),
    ]
