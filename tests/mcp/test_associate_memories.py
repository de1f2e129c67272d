import pytest

from graph import age
from graph.api.specs import TYPE_CHOICES
from graph.models import Association, Origin
from tests.factories import MemoryFactory
from tests.mcp.conftest import call

pytestmark = pytest.mark.django_db(transaction=True)
MISSING = "00000000-0000-4000-8000-000000000000"
OUT_OF_RANGE = "associate_memories: single association strength must be a number between 0 and 1"
BATCH_EMPTY = "'associations' must be a non-empty array"
BATCH_SIZE = "Batch size limit is 500 associations per request"


def graph_differences(memories):
    """Differences between table and graph about these memories (the graph outlives flushed tables)."""
    return [found for found in age.differences() if any(memory in found[1] for memory in memories)]


def authored():
    """Associations made by people (enrichment adds SIMILAR_TO and PRECEDED_BY edges of its own)."""
    return Association.objects.filter(origin=Origin.USER)


@pytest.fixture
def memories(alice):
    return [
        str(MemoryFactory(owner=alice, content=text).pk)
        for text in (
            "We chose PostgreSQL for the event store because of ACID guarantees.",
            "MongoDB was evaluated for the event store and rejected.",
            "The billing service writes invoices to the event store.",
        )
    ]


def pair(memories, **extra):
    first, second = memories[:2]
    return {"memory1_id": first, "memory2_id": second, "type": "PREFERS_OVER", "strength": 0.9, **extra}


def refused(token, arguments):
    """The tool error's message; nothing may have been written."""
    result = call(token, "associate_memories", arguments)
    assert result.is_error
    assert result.structured_content["code"] == 400
    assert not authored().exists()
    return result.content[0].text


def test_a_pair_is_created_with_its_properties_in_table_and_graph(alice_token, memories):
    result = call(alice_token, "associate_memories", pair(memories, reason="ACID"))
    assert not result.is_error
    answer = result.structured_content
    assert answer["success"] is True
    assert answer["message"] == f"Association created between {memories[0]} and {memories[1]}"
    assert (answer["relation_type"], answer["strength"], answer["reason"]) == ("PREFERS_OVER", 0.9, "ACID")
    link = authored().get()
    assert (link.relation_type, link.strength, link.properties) == ("PREFERS_OVER", 0.9, {"reason": "ACID"})
    assert graph_differences(memories) == []


def test_repeating_a_pair_updates_the_one_association(alice_token, memories):
    call(alice_token, "associate_memories", pair(memories, strength=0.4))
    call(alice_token, "associate_memories", pair(memories, strength=0.8))
    assert list(authored().values_list("strength", flat=True)) == [0.8]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"type": None}, "associate_memories: single association type is required"),
        ({"strength": None}, "associate_memories: single association strength is required"),
        ({"strength": 1.5}, OUT_OF_RANGE),
        ({"strength": -0.1}, OUT_OF_RANGE),
        ({"strength": "high"}, OUT_OF_RANGE),
        ({"memory2_id": None}, "'memory1_id' and 'memory2_id' are required"),
    ],
)
def test_a_pair_without_type_or_valid_strength_is_refused(alice_token, memories, change, message):
    arguments = {name: value for name, value in pair(memories, **change).items() if value is not None}
    assert refused(alice_token, arguments) == message


def test_an_unknown_type_gets_the_rest_message(alice_token, memories):
    assert refused(alice_token, pair(memories, type="LIKES")) == TYPE_CHOICES


def test_a_system_type_cannot_be_authored(alice_token, memories):
    assert refused(alice_token, pair(memories, type="SIMILAR_TO")) == TYPE_CHOICES


def test_an_empty_batch_is_refused(alice_token):
    assert refused(alice_token, {"associations": []}) == BATCH_EMPTY


def test_a_batch_of_501_items_is_refused(alice_token, memories):
    items = [pair(memories)] * 501
    assert refused(alice_token, {"associations": items}) == BATCH_SIZE


@pytest.mark.parametrize("field", ["memory1_id", "type", "strength", "reason"])
def test_a_batch_mixed_with_top_level_fields_is_refused(alice_token, memories, field):
    arguments = {"associations": [pair(memories)], field: pair(memories, reason="why")[field]}
    assert refused(alice_token, arguments) == (
        f"associate_memories: 'associations' cannot be combined with {field}"
    )


@pytest.mark.parametrize(
    ("drop", "message"),
    [
        ("type", "associate_memories: associations[1] type is required"),
        ("strength", "associate_memories: associations[1] strength is required"),
        ("memory2_id", "associate_memories: associations[1] needs memory2_id"),
    ],
)
def test_a_batch_item_missing_a_field_refuses_the_whole_batch(alice_token, memories, drop, message):
    incomplete = {name: value for name, value in pair(memories).items() if name != drop}
    assert refused(alice_token, {"associations": [pair(memories), incomplete]}) == message


def test_a_batch_item_with_strength_out_of_range_refuses_the_whole_batch(alice_token, memories):
    items = [pair(memories), pair(memories, strength=2)]
    assert refused(alice_token, {"associations": items}) == (
        "associate_memories: associations[1] strength must be a number between 0 and 1"
    )


def test_a_batch_lands_what_it_can_and_lists_each_failure_with_its_reason(alice_token, memories):
    items = [
        pair(memories),
        pair(memories[1:], type="part_of", strength=0.7, role="store"),
        {"memory1_id": memories[0], "memory2_id": MISSING, "type": "LEADS_TO", "strength": 0.5},
        {"memory1_id": memories[0], "memory2_id": memories[2], "type": "LIKES", "strength": 0.5},
        {"memory1_id": memories[2], "memory2_id": memories[2], "type": "LEADS_TO", "strength": 0.5},
    ]
    result = call(alice_token, "associate_memories", {"associations": items})
    answer = result.structured_content
    assert not result.is_error
    assert answer["success"] is False
    assert answer["message"] == answer["summary"] == "2/5 associations created successfully"
    assert (answer["created_count"], answer["failed_count"]) == (2, 3)
    assert [item["index"] for item in answer["succeeded"]] == [0, 1]
    assert answer["succeeded"][1]["role"] == "store"
    assert answer["failed"] == [
        {"index": 2, "reason": "One or both memories do not exist"},
        {"index": 3, "reason": TYPE_CHOICES},
        {"index": 4, "reason": "Cannot associate a memory with itself"},
    ]
    assert authored().count() == 2
    assert graph_differences(memories) == []


def test_a_complete_batch_succeeds(alice_token, memories):
    items = [pair(memories), pair(memories[1:], type="RELATES_TO", strength=0.6)]
    answer = call(alice_token, "associate_memories", {"associations": items}).structured_content
    assert (answer["success"], answer["created_count"], answer["failed"]) == (True, 2, [])
