"""Recall reads the query's terms (their weights and first matches) in a statement of its own,
before the statement that scores; what changes in between is seen by the scoring."""

import pytest
from django.db import connection

from memories.models import Memory
from tests.factories import MemoryFactory
from tests.memories.conftest import recall, recalled_contents

pytestmark = pytest.mark.django_db

MATCHING = "The zanzibarite stone hides the cabin key"


def change_after_the_terms(change):
    """An execute wrapper that makes `change` right after the recall has read the query's terms."""

    def wrapper(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if "lexemes AS" in sql:
            change()
        return result

    return wrapper


@pytest.mark.parametrize("change", ["archive", "delete"])
def test_a_term_match_archived_or_deleted_after_the_terms_were_read_is_not_returned(
    alice, alice_client, change
):
    memory = MemoryFactory(owner=alice, content=MATCHING)
    MemoryFactory(owner=alice, content="Weekly planning notes")
    rows = Memory.objects.filter(pk=memory.pk)

    def apply():
        if change == "archive":
            rows.update(archived_at="2026-01-01T00:00:00Z")
        else:
            rows.delete()

    with connection.execute_wrapper(change_after_the_terms(apply)):
        contents = recalled_contents(alice_client, query="zanzibarite", limit=5)
    assert MATCHING not in contents
    assert contents


def test_a_term_match_is_returned_when_nothing_changes(alice, alice_client):
    MemoryFactory(owner=alice, content=MATCHING)
    assert recalled_contents(alice_client, query="zanzibarite", limit=1) == [MATCHING]


@pytest.mark.parametrize(
    "query",
    ["it's the keeper's 'quoted' lamp", 'a \\ backslash and "double" lamp', "lamp & | ! :* <-> ()"],
    ids=["apostrophes", "backslash", "tsquery operators"],
)
def test_query_words_with_quotes_and_operators_reach_the_scoring_intact(alice, alice_client, query):
    MemoryFactory(owner=alice, content="The keeper's lamp is quoted in the backslash double notes")
    MemoryFactory(owner=alice, content="Weekly planning notes")
    results = recall(alice_client, query=query, limit=2)["results"]
    assert results[0]["memory"]["content"].startswith("The keeper's lamp")
    assert results[0]["score_components"]["keyword"] > 0
