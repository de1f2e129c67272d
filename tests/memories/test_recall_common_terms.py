"""A query word the table's statistics find in many memories gets no full-text candidates of its
own and weighs as a common word (its collection-wide frequency), so a large owner's recall does not
read a bitmap of most of its memories for it."""

import math

import numpy as np
import pytest
from django.db import connection

from memories import embeddings
from memories.models import Memory
from tests.factories import MemoryFactory
from tests.memories.conftest import recall
from tests.startup import start_with

pytestmark = pytest.mark.django_db

QUERY = "planning zanzibarite"
PLAIN_NOTE = "Weekly planning notes number 3"
RARE_NOTE = "The cabin key hides under the zanzibarite stone"


@pytest.fixture
def analyzed(alice, settings):
    settings.RECALL_CANDIDATES = 100  # per_term = 50
    for n in range(30):
        MemoryFactory(owner=alice, content=f"Weekly planning notes number {n}")
    rare = MemoryFactory(owner=alice, content=RARE_NOTE)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE memories_memory")
    return rare


def idf(matches):
    return math.log(1 + 4 * 50 / (matches + 0.5))


def keyword_of_plain_note(client):
    results = recall(client, query=QUERY, limit=40)["results"]
    return next(r["score_components"]["keyword"] for r in results if r["memory"]["content"] == PLAIN_NOTE)


def test_a_word_below_the_threshold_weighs_by_its_matches(analyzed, alice_client, settings):
    settings.RECALL_COMMON_TERM_MATCHES = 5000
    assert keyword_of_plain_note(alice_client) == pytest.approx(idf(30) / (idf(30) + idf(1)), abs=1e-6)


def test_a_word_the_statistics_call_common_weighs_as_common(analyzed, alice_client, settings):
    settings.RECALL_COMMON_TERM_MATCHES = 10
    assert keyword_of_plain_note(alice_client) == pytest.approx(idf(50) / (idf(50) + idf(1)), abs=1e-6)


def test_a_rare_word_still_brings_its_matches(analyzed, alice_client, settings):
    settings.RECALL_COMMON_TERM_MATCHES = 10
    settings.RECALL_CANDIDATES = 10
    away = -np.array(embeddings.embed(QUERY))
    Memory.objects.filter(pk=analyzed.pk).update(embedding=away.tolist())  # out of the vector's reach

    results = recall(alice_client, query=QUERY, limit=40)["results"]

    assert results[0]["memory"]["content"] == RARE_NOTE
    assert results[0]["match_type"] == "keyword"


def test_a_common_term_threshold_of_zero_stops_start_up_naming_the_variable():
    result = start_with(MEMSITE_RECALL_COMMON_TERM_MATCHES="0")

    assert result.returncode != 0
    assert "MEMSITE_RECALL_COMMON_TERM_MATCHES must be between 1 and 1000000000 (got '0')" in result.stderr
