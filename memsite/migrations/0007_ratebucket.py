from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memsite", "0006_replicapin"),
    ]

    operations = [
        migrations.DeleteModel(name="RateCounter"),
        migrations.CreateModel(
            name="RateBucket",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("scope", models.CharField(max_length=20)),
                ("ident", models.CharField(max_length=200)),
                (
                    "tat",
                    models.FloatField(
                        help_text="theoretical arrival time of the next request, epoch seconds"
                    ),
                ),
                (
                    "allowed",
                    models.BooleanField(default=True, help_text="whether the last request was let through"),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["tat"], name="ratebucket_tat")],
                "constraints": [
                    models.UniqueConstraint(fields=("scope", "ident"), name="ratebucket_scope_ident")
                ],
            },
        ),
        # Counting a request must not wait for a WAL flush; losing the counts in a crash is fine.
        migrations.RunSQL(
            "ALTER TABLE memsite_ratebucket SET UNLOGGED",
            "ALTER TABLE memsite_ratebucket SET LOGGED",
        ),
    ]
