import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from graph import age
from graph.models import Association
from memories.models import Memory
from quality.models import Inconsistency, QualityAssessment
from tests.factories import AssociationFactory, MemoryFactory

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:memories_memory_changelist")


def listed(response):
    return {memory.pk for memory in response.context["cl"].result_list}


def run_action(admin_client, url, action, objects):
    return admin_client.post(
        url, {"action": action, "_selected_action": [str(obj.pk) for obj in objects]}, follow=True
    )


def test_the_memory_list_filters_by_quality_tier(admin_client, curation_data):
    low = {memory.pk for memory in Memory.objects.filter(quality_score__lt=0.5)}
    response = admin_client.get(CHANGELIST, {"tier": "low"})
    assert response.status_code == 200
    assert listed(response) == low


def test_the_memory_list_filters_by_type_archived_and_boosted(admin_client, curation_data):
    archived = curation_data["offline"]
    Memory.objects.filter(pk=archived.pk).update(archived_at="2026-01-01T00:00:00Z")
    assert listed(admin_client.get(CHANGELIST, {"archived": "yes"})) == {archived.pk}
    assert listed(admin_client.get(CHANGELIST, {"memory_type": "Decision"})) == {
        curation_data["memories"][3].pk
    }
    boosted = admin_client.get(CHANGELIST, {"quality_boost_applied__exact": "1"})
    assert listed(boosted) == {curation_data["hub"].pk}


def test_searching_finds_content_words_and_exact_tags(admin_client, curation_data):
    assert listed(admin_client.get(CHANGELIST, {"q": "Tuesdays"})) == {curation_data["memories"][3].pk}
    assert listed(admin_client.get(CHANGELIST, {"q": "HABIT"})) == {curation_data["memories"][7].pk}


def test_the_reevaluate_action_records_one_assessment_per_memory(admin_client, curation_data):
    chosen = curation_data["memories"][:3]
    run_action(admin_client, CHANGELIST, "reevaluate_quality", chosen)
    assert QualityAssessment.objects.filter(memory__in=chosen, trigger="evaluate").count() == 3


def test_archive_and_restore_actions_change_the_memories(admin_client, curation_data):
    chosen = curation_data["memories"][5:7]
    run_action(admin_client, CHANGELIST, "archive", chosen)
    assert Memory.objects.filter(pk__in=[m.pk for m in chosen], archived_at__isnull=False).count() == 2
    run_action(admin_client, CHANGELIST, "restore", chosen)
    assert Memory.objects.filter(pk__in=[m.pk for m in chosen], archived_at__isnull=True).count() == 2


def test_the_protect_action_protects_the_memories(admin_client, curation_data):
    run_action(admin_client, CHANGELIST, "protect", curation_data["memories"][:2])
    assert Memory.objects.filter(protected=True).count() == 2


def test_editing_content_in_the_admin_re_embeds_and_re_evaluates(admin_client, curation_data):
    memory = curation_data["memories"][4]
    before = list(memory.embedding)
    url = reverse("admin:memories_memory_change", args=[memory.pk])
    response = admin_client.post(
        url,
        {
            "content": "Prefers a light theme in the editor during the day",
            "tags": "UI, Theme",
            "memory_type": "Preference",
            "importance": "0.7",
            "metadata": "{}",
            "outgoing-TOTAL_FORMS": "0",
            "outgoing-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 302
    memory.refresh_from_db()
    assert memory.tags == ["ui", "theme"]
    assert list(memory.embedding) != before
    assert memory.assessments.filter(trigger="update").exists()


def test_the_admin_refuses_content_the_api_would_refuse(admin_client, curation_data):
    memory = curation_data["memories"][4]
    url = reverse("admin:memories_memory_change", args=[memory.pk])
    response = admin_client.post(
        url,
        {
            "content": "x" * 2001,
            "tags": "",
            "memory_type": "Preference",
            "importance": "2",
            "metadata": "{}",
            "outgoing-TOTAL_FORMS": "0",
            "outgoing-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert "Content exceeds maximum length of 2000 characters (2001 provided)" in errors["content"]
    assert "'importance' must be between 0 and 1" in errors["importance"]


def test_memories_cannot_be_added_in_the_admin(admin_client, db):
    assert admin_client.get(reverse("admin:memories_memory_add")).status_code == 403


def test_the_memory_page_lists_its_outgoing_associations_inline(admin_client, curation_data):
    hub = curation_data["hub"]
    response = admin_client.get(reverse("admin:memories_memory_change", args=[hub.pk]))
    assert response.status_code == 200
    assert b"Outgoing associations" in response.content
    assert len(response.context["inline_admin_formsets"][0].formset.forms) == 6


def test_a_memory_without_associations_says_so_and_still_saves(admin_client, alice):
    memory = MemoryFactory(owner=alice, content="A memory that links to nothing")
    url = reverse("admin:memories_memory_change", args=[memory.pk])
    shown = admin_client.get(url)
    assert 'id="no-outgoing-associations"' in shown.content.decode()
    assert "links to no other memory yet" in shown.content.decode()
    prefix = shown.context["inline_admin_formsets"][0].formset.prefix
    response = admin_client.post(
        url,
        {
            "content": "A memory that still links to nothing",
            "tags": ",".join(memory.tags),
            "memory_type": memory.memory_type,
            "importance": memory.importance,
            "metadata": "{}",
            f"{prefix}-TOTAL_FORMS": "0",
            f"{prefix}-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 302
    memory.refresh_from_db()
    assert memory.content == "A memory that still links to nothing"


def test_an_association_added_in_the_admin_is_mirrored_in_the_graph(admin_client, curation_data):
    first, second = curation_data["memories"][1], curation_data["memories"][5]
    response = admin_client.post(
        reverse("admin:graph_association_add"),
        {
            "source": first.pk,
            "target": second.pk,
            "relation_type": "LEADS_TO",
            "strength": "0.7",
            "properties": "{}",
        },
    )
    assert response.status_code == 302
    assert Association.objects.filter(source=first, target=second, relation_type="LEADS_TO").exists()
    edges = age.cypher(
        "MATCH (a:Memory)-[e:LEADS_TO]->(b:Memory) WHERE a.id = $a AND b.id = $b RETURN e.strength",
        {"a": str(first.pk), "b": str(second.pk)},
    )
    assert edges == [(0.7,)]


def test_the_dismiss_action_dismisses_findings(admin_client, curation_data):
    finding = Inconsistency.objects.get(type="contradiction")
    run_action(admin_client, reverse("admin:quality_inconsistency_changelist"), "dismiss", [finding])
    finding.refresh_from_db()
    assert finding.status == "dismissed"


def test_the_keep_both_action_resolves_findings(admin_client, curation_data):
    finding = Inconsistency.objects.get(type="contradiction")
    run_action(
        admin_client, reverse("admin:quality_inconsistency_changelist"), "resolve_keep_both", [finding]
    )
    finding.refresh_from_db()
    assert (finding.status, finding.resolution) == ("resolved", "keep_both")


@pytest.mark.parametrize(
    "name", ["quality_consolidationrun", "quality_qualityboost", "quality_qualityassessment"]
)
def test_history_models_are_read_only(admin_client, db, name):
    assert admin_client.get(reverse(f"admin:{name}_changelist")).status_code == 200
    assert admin_client.get(reverse(f"admin:{name}_add")).status_code == 403


def test_the_reset_boost_action_removes_the_boost(admin_client, curation_data):
    hub = curation_data["hub"]
    run_action(admin_client, CHANGELIST, "reset_boost", [hub])
    hub.refresh_from_db()
    assert hub.quality_boost_applied is False
    assert hub.quality_score == pytest.approx(hub.quality_overall)
    assert hub.boosts.filter(kind="reset").exists()


def test_the_archive_action_changes_every_selected_memory_in_one_statement(
    admin_client, curation_data, django_assert_max_num_queries
):
    chosen = [str(memory.pk) for memory in curation_data["memories"][3:8]]
    with django_assert_max_num_queries(8):
        admin_client.post(CHANGELIST, {"action": "archive", "_selected_action": chosen})
    assert Memory.objects.filter(pk__in=chosen, archived_at__isnull=False).count() == 5


def test_the_memory_list_filters_by_validity_and_the_page_links_the_replacement(admin_client, alice):
    older = MemoryFactory(owner=alice, content="Ines lives in Ghent")
    newer = MemoryFactory(owner=alice, content="Ines has lived in Antwerp since April")
    AssociationFactory(source=older, target=newer, relation_type="INVALIDATED_BY")

    assert listed(admin_client.get(CHANGELIST, {"validity": "superseded"})) == {older.pk}
    assert listed(admin_client.get(CHANGELIST, {"validity": "current"})) == {newer.pk}
    page = admin_client.get(reverse("admin:memories_memory_change", args=[older.pk])).content.decode()
    assert reverse("admin:memories_memory_change", args=[newer.pk]) in page
    assert "Ines has lived in Antwerp since April" in page


def test_the_boost_list_filters_by_owner(admin_client, curation_data, alice):
    response = admin_client.get(
        reverse("admin:quality_qualityboost_changelist"), {"memory__owner__id__exact": alice.pk}
    )
    rows = response.context["cl"].result_list
    assert rows
    assert {row.memory.owner_id for row in rows} == {alice.pk}


def test_the_assessment_list_filters_by_owner(admin_client, curation_data, alice, bob):
    MemoryFactory(owner=bob, content="Bob keeps his notes in a paper diary.")
    url = reverse("admin:quality_qualityassessment_changelist")
    for owner in (alice, bob):
        rows = admin_client.get(url, {"memory__owner__id__exact": owner.pk}).context["cl"].result_list
        assert rows
        assert {row.memory.owner_id for row in rows} == {owner.pk}


def test_the_admin_list_counts_its_filtered_rows_in_the_summarys_own_scan(admin_client, alice):
    MemoryFactory.create_batch(3, owner=alice, memory_type="Decision")
    MemoryFactory(owner=alice, memory_type="Context")
    url = reverse("admin:memories_memory_changelist")
    with CaptureQueriesContext(connection) as queries:
        response = admin_client.get(url, {"memory_type__exact": "Decision"})
    assert response.context["cl"].result_count == 3
    assert response.context["list_summary"]["total"] == 3
    count_only = 'SELECT COUNT(*) AS "__count" FROM "memories_memory"'
    assert [q["sql"] for q in queries if q["sql"].startswith(count_only)] == []


def test_the_admin_memory_page_rounds_scores_and_keeps_the_exact_value_on_hover(admin_client, alice):
    memory = MemoryFactory(owner=alice, content="A memory with an exact score")
    Memory.objects.filter(pk=memory.pk).update(quality_score=0.6124973860243342, relevance_score=1.7242482388)
    html = admin_client.get(reverse("admin:memories_memory_change", args=[memory.pk])).content.decode()
    assert '<span title="0.6124973860243342">0.61</span>' in html
    assert '<span title="1.7242482388">1.72</span>' in html
    assert ">0.6124973860243342<" not in html
