import pytest
from django.urls import reverse

from memories.services import archive_memory
from quality.models import Inconsistency

pytestmark = pytest.mark.django_db

PAGES = ["overview", "quality", "inconsistencies", "boosts", "consolidation"]


@pytest.mark.parametrize("name", PAGES)
def test_anonymous_visitors_are_sent_to_the_login_page(client, name):
    response = client.get(reverse(f"dashboard:{name}"))
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/dashboard/")


def test_signed_in_users_who_are_not_staff_are_refused(client, alice):
    client.force_login(alice)
    assert client.get(reverse("dashboard:overview")).status_code == 403


def test_the_login_page_renders_a_form_with_csrf(client):
    response = client.get("/accounts/login/")
    assert response.status_code == 200
    assert b"csrfmiddlewaretoken" in response.content


def test_every_page_renders_its_charts_within_a_fixed_number_of_queries(
    curator, curation_data, django_assert_max_num_queries
):
    for name in PAGES:
        with django_assert_max_num_queries(16):
            response = curator.get(reverse(f"dashboard:{name}"))
        assert response.status_code == 200, name
        assert b"Plotly.newPlot" in response.content, name
        assert b"vendor/plotly.min.js" in response.content, name
        assert b"cdn.plot.ly" not in response.content, name


def test_the_overview_counts_live_memories_and_open_findings(curator, curation_data):
    response = curator.get(reverse("dashboard:overview"))
    assert response.context["summary"]["total"] == len(curation_data["memories"])
    assert response.context["inconsistencies"]["by_type"]["contradiction"] == 1


def test_the_memory_page_shows_content_dimensions_and_findings(
    curator, curation_data, django_assert_max_num_queries
):
    online = curation_data["online"]
    with django_assert_max_num_queries(20):
        response = curator.get(reverse("dashboard:memory", args=[online.pk]))
    assert response.status_code == 200
    assert online.content.encode() in response.content
    assert b"chart-memory-dimensions" in response.content
    assert [finding.type for finding in response.context["findings"]] == ["contradiction"]


def test_the_memory_page_draws_the_graph_neighbourhood(curator, curation_data):
    hub = curation_data["hub"]
    response = curator.get(reverse("dashboard:memory", args=[hub.pk]))
    assert b"chart-network" in response.content
    assert len(response.context["neighbours"]) == 6


def test_an_unknown_memory_answers_404(curator, db):
    response = curator.get(reverse("dashboard:memory", args=["00000000-0000-0000-0000-000000000000"]))
    assert response.status_code == 404


def test_the_quality_filters_narrow_every_figure(curator, curation_data):
    response = curator.get(reverse("dashboard:quality"), {"memory_type": "Decision", "tag": "DEPLOY"})
    assert response.context["summary"]["total"] == 1
    assert [memory.memory_type for memory in response.context["ranked"]["top"]] == ["Decision"]


def test_invalid_filter_values_are_ignored_not_an_error(curator, curation_data):
    response = curator.get(reverse("dashboard:quality"), {"memory_type": "Nonsense", "owner": "x"})
    assert response.status_code == 200
    assert response.context["summary"]["total"] == len(curation_data["memories"])


def test_the_review_queue_lists_open_findings_with_both_memories(curator, curation_data):
    response = curator.get(reverse("dashboard:inconsistencies"))
    finding = Inconsistency.objects.get(type="contradiction")
    assert [row["finding"].pk for row in response.context["rows"]] == [finding.pk]
    assert curation_data["online"].content.encode() in response.content
    assert curation_data["offline"].content.encode() in response.content


def test_the_boost_page_lists_the_boosted_hub_with_its_connections(curator, curation_data):
    response = curator.get(reverse("dashboard:boosts"))
    hub = curation_data["hub"]
    assert [memory.pk for memory in response.context["page"]] == [hub.pk]
    assert response.context["page"][0].quality_boost_connection_count == 6


def test_the_consolidation_page_shows_each_phase_of_a_run(curator, curation_data):
    response = curator.get(reverse("dashboard:consolidation"))
    row = response.context["rows"][0]
    assert row["run"].pk == curation_data["run"].pk
    assert [phase["name"] for phase in row["phases"]] == [
        "evaluate",
        "discover",
        "boost",
        "relevance",
        "retention",
        "cleanup",
    ]
    assert b"Association quality boost" in response.content
    assert b"Association discovery" in response.content


def test_filtering_by_tag_leaves_account_wide_snapshots_out_of_the_trend(curator, curation_data):
    unfiltered = curator.get(reverse("dashboard:quality"))
    assert b"consolidation snapshot" in unfiltered.content
    assert not unfiltered.context["snapshots_hidden"]
    response = curator.get(reverse("dashboard:quality"), {"tag": "status"})
    assert response.context["snapshots_hidden"]
    assert response.context["summary"]["total"] == 2


def test_the_queue_offers_no_archive_button_for_an_archived_memory(curator, curation_data):
    offline = curation_data["offline"]
    archive_memory(offline)
    response = curator.get(reverse("dashboard:inconsistencies"))
    row = response.context["rows"][0]
    archived_side = "1" if row["finding"].memory1_id == offline.pk else "2"
    live_side = "2" if archived_side == "1" else "1"
    actions = [value for value, _, _ in row["actions"]]
    assert f"archive:{live_side}" in actions
    assert f"archive:{archived_side}" not in actions
