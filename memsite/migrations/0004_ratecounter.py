from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memsite", "0003_cache_table"),
    ]

    operations = [
        migrations.CreateModel(
            name="RateCounter",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("scope", models.CharField(max_length=20)),
                ("ident", models.CharField(max_length=200)),
                ("window", models.BigIntegerField(help_text="window start, in seconds since the epoch")),
                ("count", models.PositiveIntegerField(default=0)),
            ],
            options={
                "indexes": [models.Index(fields=["window"], name="ratecounter_window")],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("scope", "ident", "window"), name="ratecounter_scope_ident_window"
                    )
                ],
            },
        ),
    ]
