"""Full-text search per owner: one GIN index over (owner, search vector), with btree_gin.

Recall asks for one owner's memories matching a term. With the owner btree and a GIN index on the
search vector alone, PostgreSQL intersects two bitmaps, and the owner's bitmap holds every memory
of the owner: about 50 ms a term for an owner of 134,000 memories (bench/README.md, a million
memories). Both keys in one GIN index intersect inside the index. A multicolumn GIN index also
answers conditions on the search vector alone (the staff memory browser searches every owner).
"""

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.operations import BtreeGinExtension
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("memories", "0007_pendingaccess")]

    operations = [
        BtreeGinExtension(),
        migrations.RemoveIndex(model_name="memory", name="memory_search_vector_gin"),
        migrations.AddIndex(
            model_name="memory",
            index=GinIndex(fields=["owner", "search_vector"], name="memory_owner_search_gin"),
        ),
    ]
