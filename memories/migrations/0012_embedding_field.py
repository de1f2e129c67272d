"""The embedding column's field becomes the project's own `EmbeddingField`: the same column and
type (no change to the database), its values written as `embeddings.vector_literal` writes them."""

from django.db import migrations

import memories.models


class Migration(migrations.Migration):
    dependencies = [("memories", "0011_inline_embeddings")]

    operations = [
        migrations.AlterField(
            model_name="memory",
            name="embedding",
            field=memories.models.EmbeddingField(dimensions=384),
        ),
    ]
