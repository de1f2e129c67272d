"""The consolidation run's admin page answers "what did this run do?" as text: a per-phase table
of durations and counts, the parameters as a definition list, and a dry run's proposed pairs
with both memories' text and owner."""

import pytest
from django.urls import reverse

from graph.models import Association
from quality.consolidation import run_consolidation
from quality.models import ConsolidationRun
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


def run_page(client, run):
    return client.get(reverse("admin:quality_consolidationrun_change", args=[run.pk]))


def test_the_phase_table_shows_each_phases_duration_and_counts_as_text(admin_client, curation_data):
    run = ConsolidationRun.objects.get()
    html = run_page(admin_client, run).content.decode()
    evaluate = run.phases["evaluate"]
    row = html[html.index('id="phase-evaluate"') :]
    row = row[: row.index("</tr>")]
    assert f"{evaluate['duration_ms']:,} ms" in row
    assert "evaluated <strong>9</strong>" in row
    assert "took <strong>" in html


def test_step_timings_stay_out_of_the_counts(admin_client, curation_data):
    phases = run_page(admin_client, ConsolidationRun.objects.get()).context["phases"]
    discover = next(phase for phase in phases if phase["name"] == "discover")
    assert "search ms" not in discover["counts"]
    assert "search" in discover["timings"]


def test_the_parameters_are_a_definition_list_not_json(admin_client, curation_data):
    run = ConsolidationRun.objects.get()
    response = run_page(admin_client, run)
    rows = dict(response.context["parameters"])
    assert rows
    html = response.content.decode()
    name, value = next(iter(rows.items()))
    assert f"<dt>{name}</dt><dd>{value}</dd>" in html
    assert '"duration_ms"' not in html


def test_a_dry_runs_proposed_pairs_show_both_memories_and_the_owner(admin_client, alice, settings):
    settings.DISCOVERY_ENABLED = True
    # Related, not duplicates: their cosine (0.61) is inside the discovery band.
    for content in (
        "The Stripe webhook retries confused the refund reconciliation job.",
        "Refunds issued through Stripe take five business days to reach customers.",
    ):
        MemoryFactory(owner=alice, content=content, tags=["entity:stripe"])
    run = run_consolidation(dry_run=True)
    assert Association.objects.count() == 0
    response = run_page(admin_client, run)
    pairs = response.context["pairs"]
    assert pairs, run.phases["discover"]
    html = response.content.decode()
    assert "The Stripe webhook retries confused the refund reconciliation job." in html
    assert f"<td>{alice.username}</td>" in html
    assert {pairs[0]["source"].owner, pairs[0]["target"].owner} == {alice}


def test_a_run_without_phases_says_so(admin_client):
    run = ConsolidationRun.objects.create(status=ConsolidationRun.Status.QUEUED)
    html = run_page(admin_client, run).content.decode()
    assert "No phase has finished yet." in html
    assert "not finished" in html
