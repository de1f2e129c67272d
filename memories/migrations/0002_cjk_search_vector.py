import django.contrib.postgres.indexes
import django.contrib.postgres.search
from django.db import migrations, models


class Migration(migrations.Migration):
    """Index CJK text character by character (a generated column is dropped and re-added)."""

    dependencies = [
        ("memories", "0001_initial"),
    ]

    operations = [
        migrations.RemoveIndex(model_name="memory", name="memory_search_vector_gin"),
        migrations.RemoveField(model_name="memory", name="search_vector"),
        migrations.AddField(
            model_name="memory",
            name="search_vector",
            field=models.GeneratedField(
                db_persist=True,
                expression=django.contrib.postgres.search.SearchVector(
                    models.Func(
                        models.F("content"),
                        models.Value("([\\u3040-\\u30ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff])"),
                        models.Value(" \\1 "),
                        models.Value("g"),
                        function="regexp_replace",
                        output_field=models.TextField(),
                    ),
                    config="english",
                ),
                output_field=django.contrib.postgres.search.SearchVectorField(),
            ),
        ),
        migrations.AddIndex(
            model_name="memory",
            index=django.contrib.postgres.indexes.GinIndex(
                fields=["search_vector"], name="memory_search_vector_gin"
            ),
        ),
    ]
