"""Trend charts: a range picker kept in the address, a note where one day of data would be a lone
dot, and the facts superseded per week."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from dashboard.queries import superseded_per_week as counted
from graph.models import Association
from graph.services import Link, associate_memories
from quality.charts import superseded_per_week
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


def test_the_range_picker_keeps_the_quality_filters(curator, alice):
    MemoryFactory(owner=alice, content="A fact")
    response = curator.get(reverse("dashboard:quality"), {"owner": alice.pk, "days": "90"})
    assert response.context["trend_range"] == "90"
    assert f'href="?owner={alice.pk}&amp;days=7"' in response.content.decode()


def test_an_unknown_range_falls_back_to_30_days(curator):
    assert curator.get(reverse("dashboard:overview"), {"days": "-1"}).context["trend_range"] == "30"


def test_a_new_owners_single_day_gets_a_note_not_a_lone_dot(curator, alice):
    MemoryFactory(owner=alice, content="The first fact")
    html = curator.get(reverse("dashboard:quality"), {"owner": alice.pk}).content.decode()
    assert "so far: a trend needs a second day" in html


def test_facts_superseded_per_week_are_counted_by_origin(curator, alice):
    old = MemoryFactory(owner=alice, content="Ines lives in Ghent", days_old=30)
    new = MemoryFactory(owner=alice, content="Ines lives in Antwerp now")
    associate_memories(alice.pk, [Link(old.pk, new.pk, "INVALIDATED_BY", 0.9, {})])
    response = curator.get(reverse("dashboard:overview"))
    assert b'id="chart-superseded"' in response.content
    assert [(row["origin"], row["count"]) for row in counted()] == [("user", 1)]
    Association.objects.update(created_at=timezone.now() - timedelta(weeks=30))
    assert counted() == []


def test_weeks_without_supersessions_are_zero_bars():
    html = superseded_per_week([], weeks=4)
    assert html.count('"y":[0,0,0,0]') == 3
