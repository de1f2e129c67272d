import pytest

from graph.models import Association
from quality.models import Inconsistency
from tests.factories import MemoryFactory
from tests.mcp.conftest import call, calls

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def contradiction(alice):
    online = MemoryFactory(owner=alice, content="The user is online")
    offline = MemoryFactory(owner=alice, content="The user is not online")
    return Inconsistency.objects.create(
        type=Inconsistency.Type.CONTRADICTION, memory1=online, memory2=offline, severity=0.8, description="no"
    )


@pytest.fixture
def duplicate(alice):
    first = MemoryFactory(owner=alice, content="Standups are at 9:30")
    second = MemoryFactory(owner=alice, content="Stand-ups are at 9:30 every day")
    return Inconsistency.objects.create(
        type=Inconsistency.Type.DUPLICATE, memory1=first, memory2=second, severity=0.96, description="same"
    )


def test_memory_quality_answers_dimensions_boost_and_findings(alice_token, contradiction):
    result = call(alice_token, "memory_quality", {"memory_id": str(contradiction.memory1_id)})
    answer = result.structured_content
    assert set(answer["quality"]["dimensions"]) == {
        "accuracy",
        "completeness",
        "consistency",
        "timeliness",
        "relevance",
    }
    assert answer["boost"]["quality_boost_applied"] is False
    assert [finding["id"] for finding in answer["inconsistencies"]] == [contradiction.pk]
    assert result.content[0].text.endswith("1 findings")


def test_quality_report_answers_stats_and_recommendations(alice_token, contradiction):
    answer = call(alice_token, "quality_report").structured_content
    assert answer["stats"]["total_memories"] == 2
    assert answer["inconsistency_counts"]["contradiction"] == 1
    assert "contradictions_found" in {item["code"] for item in answer["recommendations"]}


def test_list_inconsistencies_filters_and_pages(alice_token, contradiction, duplicate):
    every, contradictions, page, bad = calls(
        alice_token,
        ("list_inconsistencies", {}),
        ("list_inconsistencies", {"type": "contradiction", "status": "open"}),
        ("list_inconsistencies", {"limit": 1, "offset": 1}),
        ("list_inconsistencies", {"type": "rumour"}),
    )
    assert [item["id"] for item in every.structured_content["results"]] == [duplicate.pk, contradiction.pk]
    assert [item["id"] for item in contradictions.structured_content["results"]] == [contradiction.pk]
    assert page.structured_content["count"] == 2
    assert [item["id"] for item in page.structured_content["results"]] == [contradiction.pk]
    assert bad.is_error
    assert bad.content[0].text.startswith("'type': Select a valid choice.")


def test_resolve_inconsistency_links_invalidated_by(alice_token, contradiction):
    result = call(
        alice_token,
        "resolve_inconsistency",
        {"inconsistency_id": contradiction.pk, "action": "link_invalidated_by", "reason": "went offline"},
    )
    assert (result.structured_content["status"], result.structured_content["resolution"]) == (
        "resolved",
        "link_invalidated_by",
    )
    link = Association.objects.get(relation_type="INVALIDATED_BY")
    assert link.properties == {"reason": "went offline"}


def test_resolve_inconsistency_dismisses_and_then_answers_409(alice_token, duplicate):
    dismissed, again = calls(
        alice_token,
        ("resolve_inconsistency", {"inconsistency_id": duplicate.pk, "action": "dismiss"}),
        ("resolve_inconsistency", {"inconsistency_id": duplicate.pk, "action": "keep_both"}),
    )
    assert dismissed.structured_content["status"] == "dismissed"
    assert again.structured_content == {
        "status": "error",
        "code": 409,
        "message": "Inconsistency is already dismissed",
    }


def test_resolve_inconsistency_validates_like_rest(alice_token, duplicate):
    result = call(alice_token, "resolve_inconsistency", {"inconsistency_id": duplicate.pk, "action": "burn"})
    assert result.content[0].text == "'action': \"burn\" is not a valid choice."
    duplicate.refresh_from_db()
    assert duplicate.status == "open"
