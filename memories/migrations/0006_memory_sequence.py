"""An insertion sequence on every memory: the order of memories that share a timestamp.

Memories stored in one batch, with equal timestamps or with none, all have the same `created_at`;
(created_at, sequence) orders them as they were given. Existing rows are numbered in
(created_at, id) order.
"""

from django.db import migrations, models

import memories.models

FORWARD = """
CREATE SEQUENCE memories_memory_sequence_seq AS bigint;
ALTER TABLE memories_memory ADD COLUMN sequence bigint;
UPDATE memories_memory m SET sequence = o.n
FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM memories_memory) o
WHERE m.id = o.id;
SELECT setval('memories_memory_sequence_seq', COALESCE((SELECT max(sequence) FROM memories_memory), 0) + 1, false);
ALTER TABLE memories_memory
    ALTER COLUMN sequence SET DEFAULT nextval('memories_memory_sequence_seq'),
    ALTER COLUMN sequence SET NOT NULL;
ALTER SEQUENCE memories_memory_sequence_seq OWNED BY memories_memory.sequence;
DROP INDEX memory_owner_created;
CREATE INDEX memory_owner_created ON memories_memory (owner_id, created_at DESC, sequence DESC);
"""
BACKWARD = """
DROP INDEX memory_owner_created;
ALTER TABLE memories_memory DROP COLUMN sequence;
CREATE INDEX memory_owner_created ON memories_memory (owner_id, created_at DESC);
"""


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0005_memory_entered_at"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(FORWARD, BACKWARD)],
            state_operations=[
                migrations.AddField(
                    model_name="memory",
                    name="sequence",
                    field=models.BigIntegerField(
                        db_default=memories.models.NextSequenceValue(), editable=False
                    ),
                ),
                migrations.AlterModelOptions(
                    name="memory",
                    options={"ordering": ["-created_at", "-sequence"], "verbose_name_plural": "memories"},
                ),
                migrations.RemoveIndex(model_name="memory", name="memory_owner_created"),
                migrations.AddIndex(
                    model_name="memory",
                    index=models.Index(
                        fields=["owner", "-created_at", "-sequence"], name="memory_owner_created"
                    ),
                ),
            ],
        ),
    ]
