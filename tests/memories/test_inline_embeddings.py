"""A memory's embedding is kept in its row (migration 0011), so ranking memories exactly reads one
page per memory, not a TOAST index and a second page as well."""

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db


def test_a_stored_embedding_stays_in_its_row(alice_client):
    response = alice_client.post(
        "/memory", {"content": "The embedding of this memory stays inline"}, format="json"
    )
    assert response.status_code == 201, response.json()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_column_toast_chunk_id(embedding) IS NULL, pg_column_size(embedding) "
            "FROM memories_memory WHERE id = %s",
            [response.json()["memory_id"]],
        )
        inline, size = cursor.fetchone()
    assert inline
    assert size >= 384 * 4


def test_a_memory_too_long_for_one_page_is_stored_and_recalled(alice_client):
    content = "灯台守は夜明けに潮の記録をつける。" * 117  # 1,989 characters, about 6 KB in UTF-8
    response = alice_client.post("/memory", {"content": content}, format="json")
    assert response.status_code == 201, response.json()
    recalled = alice_client.get("/recall", {"query": "灯台守 潮の記録", "limit": 3}).json()["results"]
    assert [result["memory"]["id"] for result in recalled] == [response.json()["memory_id"]]
