"""Keep when each memory entered the store, apart from its (client-set) event time.

Existing rows get their created_at: the best record of when they arrived that there is. The
column is added without a default first, so no table rewrite evaluates now() per row, then
filled in one UPDATE and given its default and NOT NULL.
"""

import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0004_fillfactor_25"),
    ]

    operations = [
        migrations.AddField(
            model_name="memory",
            name="entered_at",
            field=models.DateTimeField(null=True),
        ),
        migrations.RunSQL(
            "UPDATE memories_memory SET entered_at = created_at",
            migrations.RunSQL.noop,
        ),
        migrations.AlterField(
            model_name="memory",
            name="entered_at",
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
    ]
