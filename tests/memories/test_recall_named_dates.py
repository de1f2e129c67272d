"""A date the query's own text names favours the memories of that day or month (the `time`
component); a query naming none, or an impossible one, ranks as before."""

import math
from datetime import UTC, datetime

import pytest

from memories import time_query
from tests.factories import MemoryFactory
from tests.memories.conftest import recall

pytestmark = pytest.mark.django_db


def at(*parts):
    return datetime(*parts, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("What did Gina find on 1 February, 2023?", at(2023, 2, 1), at(2023, 2, 2)),
        ("what happened on the 3rd of March 2024", at(2024, 3, 3), at(2024, 3, 4)),
        ("Which painting did she share on October 13, 2023?", at(2023, 10, 13), at(2023, 10, 14)),
        ("notes of Sept. 5, 2021", at(2021, 9, 5), at(2021, 9, 6)),
        ("the 2023-05-08 incident", at(2023, 5, 8), at(2023, 5, 9)),
        ("What setback did she face in October 2023?", at(2023, 10, 1), at(2023, 11, 1)),
        ("in December, 2023 and on 5 May 2023", at(2023, 5, 5), at(2023, 5, 6)),
        ("on 31 February 2023", at(2023, 2, 1), at(2023, 3, 1)),
        ("31 December 9998", at(9998, 12, 31), at(9999, 1, 1)),
    ],
)
def test_the_first_day_or_else_month_a_text_names_is_found(text, start, end):
    assert time_query.named_in(text) == (start, end)


@pytest.mark.parametrize(
    "text",
    ["May I ask about 2023?", "room 12 of 2023", "9999-12-31", "December 9999", "0000-01-01", "2023-13-45"],
)
def test_a_text_without_a_possible_date_names_none(text):
    assert time_query.named_in(text) is None


@pytest.fixture
def dinners(alice):
    """The same dinner on three days: only their time tells them apart."""
    return {
        day: MemoryFactory(
            owner=alice, content=f"Dinner with Sam at the harbour ({n})", created_at=at(2023, 5, day, 19)
        )
        for n, day in enumerate((2, 8, 20))
    }


def components(alice_client, query):
    results = recall(alice_client, query=query, limit=3)["results"]
    return {result["id"]: result["score_components"] for result in results}, results[0]["id"]


def test_a_query_naming_a_day_ranks_that_days_memory_first(alice_client, dinners):
    scores, first = components(alice_client, "Who was at dinner with Sam at the harbour on 8 May 2023?")
    assert first == str(dinners[8].pk)
    assert scores[str(dinners[8].pk)]["time"] == 1
    # 5 days 5 hours before the day named, and 11 days 19 hours after it, at 3 days per e
    assert scores[str(dinners[2].pk)]["time"] == pytest.approx(math.exp(-(5 + 5 / 24) / 3))
    assert scores[str(dinners[20].pk)]["time"] == pytest.approx(math.exp(-(11 + 19 / 24) / 3))


def test_a_query_naming_a_month_gives_every_memory_of_that_month_the_full_component(alice_client, dinners):
    scores, _ = components(alice_client, "dinner with Sam at the harbour in May 2023")
    assert [component["time"] for component in scores.values()] == [1, 1, 1]


def test_a_query_naming_no_date_leaves_the_time_component_at_zero(alice_client, dinners):
    scores, _ = components(alice_client, "dinner with Sam at the harbour on 31 Smarch 2023")
    assert [component["time"] for component in scores.values()] == [0, 0, 0]


def test_a_date_decades_away_counts_for_nothing_without_an_error(alice_client, dinners):
    scores, _ = components(alice_client, "dinner with Sam at the harbour on 1 January 1900")
    assert [component["time"] for component in scores.values()] == pytest.approx([0, 0, 0], abs=1e-20)


@pytest.mark.parametrize(
    "query",
    [
        "dinner with Sam on 1 January 0001",
        "dinner with Sam on 31 December 9998",
        "dinner with Sam on ٨ May ٢٠٢٣",
        "dinner with Sam " + "on 99 May 2023, 2023-02-30, " * 60,
    ],
    ids=["year-1", "year-9998", "arabic-indic-digits", "many-impossible-dates"],
)
def test_extreme_or_odd_dates_in_a_query_rank_without_an_error(alice_client, dinners, query):
    results = recall(alice_client, query=query, limit=3)["results"]
    assert len(results) == 3
    assert all(0 <= result["score_components"]["time"] <= 1 for result in results)
