import pytest
from django.db import connection

pytestmark = pytest.mark.django_db

LIVE_INDEXES = {
    "memory_live_embedding_hnsw": "USING hnsw (embedding vector_cosine_ops)",
    "memory_live_owner_search_gin": "USING gin (owner_id, search_vector)",
    "memory_live_owner_tags_gin": "USING gin (owner_id, tags)",
    "memory_live_owner_type": "USING btree (owner_id, memory_type)",
}


def index_definitions():
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'memories_memory'")
        return dict(cursor.fetchall())


def test_full_text_matches_are_indexed_per_owner_in_one_gin_index():
    definition = index_definitions()["memory_owner_search_gin"]
    assert definition.endswith("USING gin (owner_id, search_vector)")


def test_no_index_covers_the_search_vector_alone():
    gin_on_text = [
        name
        for name, definition in index_definitions().items()
        if definition.endswith("USING gin (search_vector)")
    ]
    assert gin_on_text == []


def test_tags_are_indexed_per_owner_in_one_gin_index():
    definitions = index_definitions()
    assert definitions["memory_owner_tags_gin"].endswith("USING gin (owner_id, tags)")
    assert not [d for d in definitions.values() if d.endswith("USING gin (tags)")]


def test_the_search_indexes_hold_live_memories_only():
    definitions = index_definitions()
    for name, body in LIVE_INDEXES.items():
        assert body in definitions[name]
        assert definitions[name].endswith("WHERE (archived_at IS NULL)")
    assert "memory_embedding_hnsw" not in definitions
