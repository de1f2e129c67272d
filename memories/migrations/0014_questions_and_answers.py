"""Whether a memory's content only asks, and whether it holds a time or a number, stored: recall's
`statement` and `answer` components.

The three columns are generated from the content and added by one ALTER TABLE, so the table and
its indexes are rewritten once (each ADD COLUMN of a stored generated column rewrites them).
"""

import django.db.models.lookups
from django.db import migrations, models

QUESTION = "[?？؟][[:space:]]*$"
TIME = (
    r"\m(January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
    r"|[Yy]esterday|[Tt]oday|[Tt]omorrow|[Tt]onight|ago"
    r"|([Ll]ast|[Nn]ext|[Tt]his|[Pp]ast) (week|weekend|month|year|night|morning|afternoon|evening"
    r"|spring|summer|fall|autumn|winter)"
    r"|(19|20)[0-9]{2})\M"
)
NUMBER = (
    r"(?i)[0-9]|\m(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty"
    r"|forty|fifty|hundred|thousand|million|dozen|couple|few|several|once|twice)\M"
)
COLUMNS = {"is_question": QUESTION, "holds_time": TIME, "holds_number": NUMBER}


def generated(pattern):
    return models.GeneratedField(
        db_persist=True,
        expression=django.db.models.lookups.Regex(models.F("content"), pattern),
        output_field=models.BooleanField(),
    )


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0013_small_gin_pending_lists"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    "ALTER TABLE memories_memory "
                    + ", ".join(
                        f"ADD COLUMN {name} boolean GENERATED ALWAYS AS (content ~ '{pattern}') STORED"
                        for name, pattern in COLUMNS.items()
                    ),
                    "ALTER TABLE memories_memory " + ", ".join(f"DROP COLUMN {name}" for name in COLUMNS),
                )
            ],
            state_operations=[
                migrations.AddField(model_name="memory", name=name, field=generated(pattern))
                for name, pattern in COLUMNS.items()
            ],
        ),
    ]
