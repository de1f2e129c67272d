import pytest

from tests.memories.conftest import index_definitions, vector_indexes

pytestmark = pytest.mark.django_db

LIVE_INDEXES = {
    "memory_live_embedding_hnsw": "USING hnsw (embedding vector_cosine_ops)",
    "memory_live_owner_search_gin": "USING gin (owner_id, search_vector)",
    "memory_live_owner_tags_gin": "USING gin (owner_id, tags)",
    "memory_live_owner_type": "USING btree (owner_id, memory_type)",
}


def test_full_text_matches_are_indexed_per_owner_in_one_gin_index():
    definition = index_definitions()["memory_owner_search_gin"]
    assert "USING gin (owner_id, search_vector)" in definition


def test_no_index_covers_the_search_vector_alone():
    gin_on_text = [
        name
        for name, definition in index_definitions().items()
        if "USING gin (search_vector)" in definition
    ]
    assert gin_on_text == []


def test_tags_are_indexed_per_owner_in_one_gin_index():
    definitions = index_definitions()
    assert "USING gin (owner_id, tags)" in definitions["memory_owner_tags_gin"]
    assert not [d for d in definitions.values() if "USING gin (tags)" in d]


def test_the_search_indexes_hold_live_memories_only():
    definitions = index_definitions()
    for name, body in LIVE_INDEXES.items():
        assert body in definitions[name]
        assert definitions[name].endswith("WHERE (archived_at IS NULL)")
    assert "memory_embedding_hnsw" not in definitions


def test_a_stored_memory_enters_one_vector_index():
    """An index per memory type made batch stores a fifth slower (migration 0016)."""
    assert vector_indexes() == ["memory_live_embedding_hnsw"]


def test_every_gin_index_keeps_at_most_64_kb_of_entries_aside_from_its_tree():
    gin = {name: d for name, d in index_definitions().items() if " USING gin " in d}
    assert len(gin) == 4
    for name, definition in gin.items():
        assert "WITH (gin_pending_list_limit='64')" in definition, name
