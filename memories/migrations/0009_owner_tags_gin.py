"""Tags per owner: one GIN index over (owner, tags), like the search vector's (migration 0008).

A tag-filtered recall asks for one owner's memories carrying a tag. With the owner in another
index, PostgreSQL read the owner's whole bitmap (29 ms for an owner of 134,000 memories) and
intersected it with the tag's; both keys in one GIN index intersect inside the index. It still
answers conditions on tags alone.
"""

from django.contrib.postgres.indexes import GinIndex
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("memories", "0008_owner_search_gin")]

    operations = [
        migrations.RemoveIndex(model_name="memory", name="memory_tags_gin"),
        migrations.AddIndex(
            model_name="memory",
            index=GinIndex(fields=["owner", "tags"], name="memory_owner_tags_gin"),
        ),
    ]
