from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("memories", "0022_owner_id_index")]

    operations = [
        migrations.AddField(
            model_name="memory",
            name="replacement_proposed",
            field=models.FloatField(db_default=0.0, editable=False),
        ),
    ]
