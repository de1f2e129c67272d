"""Whether a memory's content says a value changed, stored: recall's `overtaken` component reads it
instead of matching the pattern against every candidate. Adding the stored generated column
rewrites the table and its indexes once."""

import django.db.models.lookups
from django.db import migrations, models

STATES_CHANGE = (
    r"(?i)\m(now|nowadays|these days|currently|anymore|any more|no longer|moved|moving|"
    r"switched|switching|changed|changing|replaced|replacing|instead|since|as of|starting|"
    r"from now on|from this|effective|upgraded|downgraded|updated|rescheduled|postponed|"
    r"pushed|brought forward|new|left|quit|resigned|stepped down|took over|taken over|"
    r"takes over|became|become|turned|promoted|relocated|went up|gone up|put up|raised|"
    r"increased|decreased|dropped|cut|reduced|down to|up to|back to|finally|got|signed|"
    r"approved|resolved|settled|sold)\M|(现在|如今|目前|已经|已|改为|改成|改到|换成|换了|换到|搬到|搬去|搬家|不再|调整|升级|更新|"
    r"变成|变为|变了|新的|新|以后|今后|起|推迟|提前|涨|降|离职|辞职|跳槽|接任|接手|接管|升任|上线|批下来|结婚|离婚|分手)"
)


class Migration(migrations.Migration):
    dependencies = [("memories", "0018_fresh_imports")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    "ALTER TABLE memories_memory ADD COLUMN states_change boolean "
                    f"GENERATED ALWAYS AS (content ~ '{STATES_CHANGE}') STORED",
                    "ALTER TABLE memories_memory DROP COLUMN states_change",
                )
            ],
            state_operations=[
                migrations.AddField(
                    model_name="memory",
                    name="states_change",
                    field=models.GeneratedField(
                        db_persist=True,
                        expression=django.db.models.lookups.Regex(models.F("content"), STATES_CHANGE),
                        output_field=models.BooleanField(),
                    ),
                )
            ],
        ),
    ]
