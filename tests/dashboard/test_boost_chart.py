"""The boost chart reads with one run (a dumbbell per memory) and over time with several runs;
its legend's colours are the dots' colours."""

from datetime import timedelta

import pytest
from django.utils import timezone

from quality.charts import TIER_COLOURS, boost_figure
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


def boost(label, before, after, run_id=1, days_ago=0, memory_id=None):
    return {
        "created_at": timezone.now() - timedelta(days=days_ago),
        "kind": "applied",
        "quality_before": before,
        "quality_after": after,
        "connection_count": 6,
        "run_id": run_id,
        "memory_id": memory_id or label,
        "label": label,
    }


def test_boosts_of_one_run_are_drawn_as_one_dumbbell_per_memory_largest_change_first():
    figure = boost_figure([boost("small", 0.5, 0.55), boost("large", 0.4, 0.7), boost("mid", 0.6, 0.72)])
    assert figure["layout"]["yaxis"]["type"] == "category"
    before = next(trace for trace in figure["data"] if trace["name"] == "before")
    assert before["y"] == ["large #1", "mid #2", "small #3"]
    assert before["x"] == [0.4, 0.6, 0.5]


def test_each_after_trace_has_the_colour_of_its_tier_and_says_so_in_the_legend():
    figure = boost_figure([boost("a", 0.4, 0.75), boost("b", 0.3, 0.45)])
    after = {
        trace["name"]: trace["marker"]["color"]
        for trace in figure["data"]
        if trace["name"].startswith("after")
    }
    assert after == {"after: high (≥ 0.7)": TIER_COLOURS["high"], "after: low (< 0.5)": TIER_COLOURS["low"]}


def test_boosts_of_several_runs_on_several_days_are_drawn_over_time():
    figure = boost_figure([boost("a", 0.4, 0.6, run_id=1, days_ago=3), boost("a", 0.6, 0.7, run_id=2)])
    assert figure["layout"]["xaxis"]["type"] == "date"


def test_a_memory_boosted_twice_in_one_run_gets_one_row():
    rows = [boost("a", 0.6, 0.7, memory_id="m1"), boost("a", 0.5, 0.6, memory_id="m1")]
    before = next(trace for trace in boost_figure(rows)["data"] if trace["name"] == "before")
    assert before["x"] == [0.6]


def test_markup_in_a_memory_is_shown_literally_in_the_labels():
    figure = boost_figure([boost("<b>bold</b> claim", 0.4, 0.6)])
    before = next(trace for trace in figure["data"] if trace["name"] == "before")
    assert before["y"] == ["&lt;b&gt;bold&lt;/b&gt; claim #1"]


def test_the_boosts_page_draws_the_dumbbells_for_the_curation_run(curator, curation_data):
    response = curator.get("/dashboard/boosts/")
    assert b'"type":"category"' in response.content or b'"type": "category"' in response.content


def test_the_boosts_page_shows_only_the_chosen_owner_s_boosts_and_keeps_the_owner_in_the_url(
    curator, curation_data, alice, bob
):
    MemoryFactory(owner=bob, content="Bob keeps his notes in a paper diary.")
    hub = f"/dashboard/memories/{curation_data['hub'].pk}/".encode()

    mine = curator.get("/dashboard/boosts/", {"owner": alice.pk})
    assert hub in mine.content
    assert f'<option value="{alice.pk}" selected>'.encode() in mine.content

    theirs = curator.get("/dashboard/boosts/", {"owner": bob.pk})
    assert hub not in theirs.content
    assert b"No boost has been recorded for bob's memories" in theirs.content


def test_an_owner_the_boosts_page_does_not_know_shows_every_owner_s_boosts(curator, curation_data):
    response = curator.get("/dashboard/boosts/", {"owner": "999999"})
    assert response.status_code == 200
    assert f"/dashboard/memories/{curation_data['hub'].pk}/".encode() in response.content
