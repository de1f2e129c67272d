from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from memories import time_query
from tests.factories import MemoryFactory
from tests.memories.conftest import recall

# A Wednesday.
NOW = datetime(2024, 3, 13, 15, 30, tzinfo=UTC)
TICK = timedelta(microseconds=1)


def at(*parts):
    return datetime(*parts, tzinfo=UTC)


@pytest.mark.parametrize(
    ("phrase", "start", "end"),
    [
        ("today", at(2024, 3, 13), at(2024, 3, 14) - TICK),
        ("Yesterday", at(2024, 3, 12), at(2024, 3, 13) - TICK),
        ("last 24 hours", NOW - timedelta(hours=24), None),
        ("past 48 hours", NOW - timedelta(hours=48), None),
        ("this week", at(2024, 3, 11), at(2024, 3, 18) - TICK),
        ("last week", at(2024, 3, 4), at(2024, 3, 11) - TICK),
        ("this month", at(2024, 3, 1), at(2024, 4, 1) - TICK),
        ("last month", at(2024, 2, 1), at(2024, 3, 1) - TICK),
        ("last 10 days", NOW - timedelta(days=10), None),
        ("past 1 day", NOW - timedelta(days=1), None),
        ("this year", at(2024, 1, 1), at(2025, 1, 1) - TICK),
        ("last year", at(2023, 1, 1), at(2024, 1, 1) - TICK),
        ("in May 2023", at(2023, 5, 1), at(2023, 6, 1) - TICK),
        ("december 2023", at(2023, 12, 1), at(2024, 1, 1) - TICK),
        ("in 2022", at(2022, 1, 1), at(2023, 1, 1) - TICK),
        ("since March 2024", at(2024, 3, 1), None),
        ("  since   2020 ", at(2020, 1, 1), None),
    ],
)
def test_time_phrases_resolve_to_a_range(phrase, start, end):
    assert time_query.resolve(phrase, NOW) == (start, end)


@pytest.mark.parametrize(
    "phrase",
    [
        "next week",
        "in Smarch 2023",
        "last 0 days",
        "since",
        "last 12 hours",
        "last \u0663 days",
        "in May \uff12\uff10\uff12\uff13",
        "last \uff12\uff14 hours",
    ],
)
def test_unknown_time_phrases_are_refused(phrase):
    with pytest.raises(ValueError, match="unknown time phrase"):
        time_query.resolve(phrase, NOW)


def test_a_query_naming_a_date_in_non_ascii_digits_names_none():
    assert time_query.named_in("what happened on 8 May \uff12\uff10\uff12\uff13?") is None


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"time_query": "the other day"}, "'time_query' must be one of: today, yesterday"),
        (
            {"time_query": "today", "start": "2024-01-01"},
            "Use either 'time_query' or 'start'/'end', not both",
        ),
        ({"sort": "random"}, "'sort' must be one of: score, time_desc, time_asc"),
        ({"expand_respect_tags": "maybe"}, "'expand_respect_tags' must be true or false"),
    ],
)
def test_recall_time_and_sort_validation(alice_client, params, message):
    response = alice_client.get("/recall", params)
    assert response.status_code == 400
    assert response.json() == {"status": "error", "code": 400, "message": response.json()["message"]}
    assert response.json()["message"].startswith(message)


@pytest.fixture
def diary(alice):
    now = timezone.now()
    return {
        days: str(
            MemoryFactory(
                owner=alice,
                content=f"Diary: went running by the river, {days} days ago",
                tags=["diary"],
                created_at=now - timedelta(days=days),
            ).pk
        )
        for days in (0, 3, 40, 400)
    }


@pytest.mark.django_db
def test_time_query_keeps_memories_of_that_time_only(alice_client, diary):
    found = {
        r["id"]
        for r in recall(alice_client, query="running by the river", time_query="last 7 days")["results"]
    }
    assert found == {diary[0], diary[3]}
    found = {r["id"] for r in recall(alice_client, time_query="today")["results"]}
    assert found == {diary[0]}


@pytest.mark.django_db
def test_sort_lists_results_by_time(alice_client, diary):
    newest = [
        r["id"] for r in recall(alice_client, query="running by the river", sort="time_desc")["results"]
    ]
    oldest = [r["id"] for r in recall(alice_client, query="running by the river", sort="time_asc")["results"]]
    assert newest == [diary[0], diary[3], diary[40], diary[400]]
    assert oldest == list(reversed(newest))
    first = recall(alice_client, sort="time_asc", limit=1)["results"]
    assert [r["id"] for r in first] == [diary[400]]
