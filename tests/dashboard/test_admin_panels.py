"""The dashboard's figures and review inside the Django admin pages."""

import pytest
from django.urls import reverse

from memories.models import Memory
from quality.models import ConsolidationRun, Inconsistency, QualityBoost

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:memories_memory_changelist")


def test_the_memory_list_charts_cover_every_memory_of_the_unfiltered_list(
    admin_client, curation_data, django_assert_max_num_queries
):
    with django_assert_max_num_queries(12):
        response = admin_client.get(CHANGELIST)
    assert response.status_code == 200
    summary = response.context["list_summary"]
    assert summary["total"] == Memory.objects.count()
    assert sum(summary["histogram"]) == summary["total"]
    assert b"chart-histogram" in response.content
    assert b"chart-tiers" in response.content
    assert b"vendor/plotly.min.js" in response.content


def test_the_memory_list_charts_follow_the_admin_filters_and_search(admin_client, curation_data):
    low = Memory.objects.filter(quality_score__lt=0.5).count()
    by_tier = admin_client.get(CHANGELIST, {"tier": "low"}).context["list_summary"]
    assert by_tier["total"] == low
    assert by_tier["tiers"] == {"high": 0, "medium": 0, "low": low}
    by_type = admin_client.get(CHANGELIST, {"memory_type": "Context"}).context["list_summary"]
    assert by_type["total"] == 3
    searched = admin_client.get(CHANGELIST, {"q": "Tuesdays"}).context["list_summary"]
    assert searched["total"] == 1


def test_the_memory_list_charts_span_every_page_not_only_the_shown_rows(
    admin_client, curation_data, monkeypatch
):
    from memories.admin import MemoryAdmin

    monkeypatch.setattr(MemoryAdmin, "list_per_page", 2)
    response = admin_client.get(CHANGELIST)
    assert len(response.context["cl"].result_list) == 2
    assert response.context["list_summary"]["total"] == len(curation_data["memories"])


def test_the_memory_page_shows_radar_histories_findings_and_neighbourhood(
    admin_client, curation_data, django_assert_max_num_queries
):
    hub = curation_data["hub"]
    with django_assert_max_num_queries(25):
        response = admin_client.get(reverse("admin:memories_memory_change", args=[hub.pk]))
    assert response.status_code == 200
    for chart in [b"chart-memory-dimensions", b"chart-assessments", b"chart-network"]:
        assert chart in response.content
    assert len(response.context["neighbours"]) == 6
    assert [boost.kind for boost in response.context["boosts"]] == ["applied"]
    assert b"Reset boost" in response.content


def test_the_memory_page_offers_the_review_actions_of_its_open_findings(admin_client, curation_data):
    online = curation_data["online"]
    finding = Inconsistency.objects.get(type="contradiction")
    response = admin_client.get(reverse("admin:memories_memory_change", args=[online.pk]))
    content = response.content.decode()
    assert f'action="{reverse("dashboard:resolve", args=[finding.pk])}"' in content
    assert 'value="link_contradicts:1"' in content
    assert 'value="dismiss"' in content


def test_the_inconsistency_page_shows_both_memories_and_one_button_per_action(
    admin_client, curation_data, django_assert_max_num_queries
):
    finding = Inconsistency.objects.get(type="contradiction")
    url = reverse("admin:quality_inconsistency_change", args=[finding.pk])
    with django_assert_max_num_queries(12):
        response = admin_client.get(url)
    content = response.content.decode()
    assert curation_data["online"].content in content
    assert curation_data["offline"].content in content
    values = [value for value, _, _ in response.context["review_actions"]]
    assert values == [
        "keep_both",
        "link_contradicts:1",
        "link_invalidated_by:1",
        "link_invalidated_by:2",
        "archive:1",
        "archive:2",
    ]
    for value in [*values, "dismiss"]:
        assert f'value="{value}"' in content


def test_resolving_from_the_inconsistency_page_returns_to_it_resolved(admin_client, curation_data):
    finding = Inconsistency.objects.get(type="contradiction")
    url = reverse("admin:quality_inconsistency_change", args=[finding.pk])
    response = admin_client.post(
        reverse("dashboard:resolve", args=[finding.pk]), {"action": "keep_both", "next": url}
    )
    assert response.status_code == 302
    assert response["Location"] == url
    finding.refresh_from_db()
    assert (finding.status, finding.resolution) == ("resolved", "keep_both")
    page = admin_client.get(url)
    assert page.context["review_actions"] == []


def test_an_unknown_inconsistency_id_is_not_an_error(admin_client, db):
    response = admin_client.get(reverse("admin:quality_inconsistency_change", args=["nonsense"]))
    assert response.status_code == 302


def test_the_boost_list_charts_the_filtered_boosts(
    admin_client, curation_data, django_assert_max_num_queries
):
    url = reverse("admin:quality_qualityboost_changelist")
    with django_assert_max_num_queries(10):
        response = admin_client.get(url)
    assert b"chart-boosts" in response.content
    assert response.context["charted_boosts"] == QualityBoost.objects.count()
    none = admin_client.get(url, {"kind__exact": "reset"})
    assert none.context["charted_boosts"] == 0
    assert b"chart-boosts" not in none.content


def test_the_consolidation_run_page_charts_durations_and_counts_per_phase(admin_client, curation_data):
    run = ConsolidationRun.objects.get()
    response = admin_client.get(reverse("admin:quality_consolidationrun_change", args=[run.pk]))
    assert response.status_code == 200
    assert b"chart-run-phases" in response.content
    assert b"chart-phase-counts" in response.content
    assert [phase["name"] for phase in response.context["phases"]][:3] == ["evaluate", "discover", "boost"]
