"""Keep a memory's embedding in its row instead of the TOAST table.

A vector of 384 floats takes 1,540 bytes, which with the rest of the row passes the 2 KB at which
PostgreSQL moves the largest values out of line, and pgvector's type is stored externally: every
embedding went to the TOAST table, and each read of one cost a lookup in its index and a second
page. A filtered recall that ranks an owner's 7,000 memories carrying a tag exactly read 7,000 of
them (about 36 ms at a million memories, bench/README.md). With a row target of 8,160 bytes a
row is only toasted when a very long content pushes it past a page; with fillfactor 25 each row
already had a page of its own. Rows written earlier move inline when they are next rewritten.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("memories", "0010_live_partial_indexes")]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE memories_memory SET (toast_tuple_target = 8160)",
            "ALTER TABLE memories_memory RESET (toast_tuple_target)",
        ),
    ]
