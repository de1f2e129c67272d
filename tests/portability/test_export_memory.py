import tracemalloc

import pytest
from django.db import connection

from memories.embeddings import embed, vector_literal
from portability import exports

MEMORIES = 100_000
# What the Python side of exporting 100,000 memories may hold at its peak (tracemalloc): a chunk
# of rows and the line being built (measured: 5.7 MB). Its 88 million characters of JSON Lines,
# held in a list, would take well over 100 MB.
CEILING_BYTES = 16 * 2**20

INSERT_SQL = """
INSERT INTO memories_memory (
    id, owner_id, content, content_hash, embedding, tags, memory_type, importance, metadata,
    source_type, source_id, is_explicit, confidence, corroborating_sources, created_at, updated_at,
    provenance_updated_at, entered_at, valid_from, access_count, quality_overall, quality_score,
    quality_accuracy, quality_completeness, quality_consistency, quality_timeliness,
    quality_relevance, quality_boost_applied, quality_boost_reason, protected, archive_reason)
SELECT gen_random_uuid(), %(owner)s, c.content, encode(sha256(convert_to(lower(c.content), 'UTF8')), 'hex'),
       %(vector)s::vector, ARRAY['project-' || g %% 20, 'person:' || g %% 50], 'Memory', 0.5,
       jsonb_build_object('source', 'test', 'n', g), 'user_input', '', false, 0.7, '{}',
       t.at, t.at, t.at, t.at, t.at, 0, 0.6, 0.6, 0.7, 0.5, 0.3, 0.8, 0.5, false, '', false, ''
FROM generate_series(1, %(count)s) AS g
CROSS JOIN LATERAL (SELECT now() - g * interval '1 minute' AS at) t
CROSS JOIN LATERAL (
    SELECT 'Memory number ' || g || ': the team moved the nightly export of the billing service to '
           || 'the new scheduler after the old cron host ran out of disk, as agreed in the review.'
           AS content
) c
"""


@pytest.mark.django_db
def test_exporting_a_hundred_thousand_memories_stays_under_sixteen_megabytes(alice):
    vector = vector_literal(embed("The team moved the nightly export to the new scheduler."))
    with connection.cursor() as cursor:
        # The export reads no vectors: without the HNSW index (dropped in the test's transaction,
        # which rolls back) the rows go in in seconds.
        cursor.execute("DROP INDEX memory_live_embedding_hnsw")
        cursor.execute(INSERT_SQL, {"owner": alice.pk, "vector": vector, "count": MEMORIES})

    memories = characters = 0
    tracemalloc.start()
    try:
        for line in exports.export_lines(alice):
            memories += line.startswith('{"kind":"memory"')
            characters += len(line)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert memories == MEMORIES
    assert characters > 5 * CEILING_BYTES
    assert peak < CEILING_BYTES
