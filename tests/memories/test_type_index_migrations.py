"""Migrations 0015 and 0016: the per-type HNSW indexes are never built now, and dropped wherever
an earlier 0015 built them, even by a 0016 stopped halfway (each DROP INDEX CONCURRENTLY commits
on its own)."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.conftest import migrate
from tests.memories.conftest import vector_indexes

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = ("memories", "0014_questions_and_answers")
BUILT = ("memories", "0015_type_embedding_indexes")
DROPPED = ("memories", "0016_drop_type_embedding_indexes")


def applied(migration):
    return migration in MigrationExecutor(connection).loader.applied_migrations


def test_migrating_forward_builds_no_type_index(latest_after):
    migrate(BEFORE)
    statements = migrate(DROPPED)
    assert not [sql for sql in statements if "CREATE INDEX" in sql and "_hnsw" in sql]
    assert vector_indexes() == ["memory_live_embedding_hnsw"]
    assert applied(DROPPED)


def test_type_indexes_an_earlier_0015_built_are_dropped_even_after_a_stopped_run(latest_after):
    migrate(BUILT)
    # As the first 0015 built them, and a 0016 stopped after dropping all but these two.
    with connection.cursor() as cursor:
        for kind in ("Decision", "Style"):
            cursor.execute(
                f"CREATE INDEX memory_live_{kind.lower()}_hnsw ON memories_memory USING hnsw "
                f"(embedding vector_cosine_ops) WHERE archived_at IS NULL AND memory_type = '{kind}'"
            )
    assert len(vector_indexes()) == 3
    migrate(DROPPED)
    assert vector_indexes() == ["memory_live_embedding_hnsw"]
    assert applied(DROPPED)
