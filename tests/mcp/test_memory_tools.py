import pytest

from graph.models import Association
from memories.models import Memory
from tests.factories import MemoryFactory
from tests.mcp.conftest import call, calls

pytestmark = pytest.mark.django_db(transaction=True)


def test_store_memory_stores_one_memory_with_rest_validation(alice, alice_token):
    stored, duplicate = calls(
        alice_token,
        ("store_memory", {"content": "We chose PostgreSQL for billing", "tags": "Bills", "type": "decision"}),
        ("store_memory", {"content": "we chose   postgresql for billing"}),
    )
    assert not stored.is_error
    assert stored.content[0].text.startswith(f"Stored memory {stored.structured_content['memory_id']}")
    memory = Memory.objects.get(owner=alice)
    assert ("bills" in memory.tags, memory.memory_type) == (True, "Decision")
    assert duplicate.structured_content["duplicate"] is True
    assert duplicate.structured_content["memory_id"] == str(memory.pk)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "'content' is required"),
        ({"content": "x", "importance": 2}, "'importance' must be between 0 and 1"),
        ({"content": "x", "type": "nonsense"}, "Invalid memory type 'nonsense'. Must be one of:"),
        ({"content": "x" * 2001}, "Content exceeds maximum length of 2000 characters (2001 provided)"),
    ],
)
def test_store_memory_refuses_bad_input_with_the_rest_message(alice, alice_token, arguments, message):
    result = call(alice_token, "store_memory", arguments)
    assert result.is_error
    assert result.structured_content["code"] == 400
    assert result.content[0].text.startswith(message)
    assert not Memory.objects.exists()


def test_store_memory_stores_a_batch_and_lists_failed_items(alice, alice_token):
    memories = [{"content": "Deploys happen on Tuesdays"}, {"content": ""}, {"content": "Staging is on k3s"}]
    result = call(alice_token, "store_memory", {"memories": memories})
    answer = result.structured_content
    assert (answer["stored_count"], answer["failed_count"]) == (2, 1)
    assert answer["failed"] == [{"index": 1, "reason": "'content' is required"}]
    assert Memory.objects.filter(owner=alice).count() == 2


def test_store_memory_refuses_a_batch_mixed_with_single_fields(alice, alice_token):
    result = call(alice_token, "store_memory", {"memories": [{"content": "a"}], "content": "b"})
    assert result.is_error
    assert not Memory.objects.exists()


def test_recall_memory_finds_by_meaning_and_follows_associations(alice, alice_token):
    billing = MemoryFactory(
        owner=alice, content="We chose PostgreSQL for the billing service", tags=["billing"]
    )
    rejected = MemoryFactory(owner=alice, content="MongoDB was rejected: no multi-document transactions then")
    MemoryFactory(owner=alice, content="The office plants are watered on Fridays")
    link = {"memory1_id": str(billing.pk), "memory2_id": str(rejected.pk), "type": "PREFERS_OVER"}
    _, plain, expanded = calls(
        alice_token,
        ("associate_memories", {**link, "strength": 0.9}),
        ("recall_memory", {"query": "which database stores payments", "limit": 1}),
        (
            "recall_memory",
            {
                "query": "which database stores payments",
                "limit": 3,
                "expand_relations": True,
                "expand_min_strength": 0.5,
                "max_hops": 2,
                "tag_match": "prefix",
            },
        ),
    )
    assert plain.structured_content["results"][0]["id"] == str(billing.pk)
    assert plain.content[0].text.startswith("1 memories in")
    results = {result["id"]: result for result in expanded.structured_content["results"]}
    assert str(rejected.pk) in results
    assert results[str(billing.pk)]["relations"][0]["type"] == "PREFERS_OVER"
    association = results[str(billing.pk)]["relations"][0]["association"]
    assert (association["id"], association["origin"]) == (Association.objects.get().pk, "user")
    assert expanded.structured_content["expansion"]


def test_recall_memory_refuses_bad_parameters_with_the_rest_message(alice_token):
    result = call(alice_token, "recall_memory", {"query": "x", "limit": 500})
    assert result.is_error
    assert result.content[0].text == "'limit' must be an integer between 1 and 100"


def test_recall_memory_takes_time_query_and_sort_as_the_rest_api_does(alice, alice_token):
    old = MemoryFactory(owner=alice, content="Deploys run from the release branch", days_old=40)
    new = MemoryFactory(owner=alice, content="Deploys run from the main branch now")
    recent, oldest_first, unknown = calls(
        alice_token,
        ("recall_memory", {"query": "deploys branch", "time_query": "last 7 days"}),
        ("recall_memory", {"query": "deploys branch", "sort": "time_asc"}),
        ("recall_memory", {"query": "deploys", "time_query": "the other day"}),
    )

    def ids(answer):
        return [result["id"] for result in answer.structured_content["results"]]

    assert ids(recent) == [str(new.pk)]
    assert ids(oldest_first) == [str(old.pk), str(new.pk)]
    assert unknown.is_error
    assert unknown.content[0].text.startswith("'time_query' must be one of:")


def test_get_update_archive_restore_search_and_delete_a_memory(alice, alice_token):
    memory = MemoryFactory(owner=alice, content="The API is versioned in the URL", tags=["api"])
    memory_id = str(memory.pk)
    got, updated, archived, hidden, restored, found, deleted, gone = calls(
        alice_token,
        ("get_memory", {"memory_id": memory_id}),
        ("update_memory", {"memory_id": memory_id, "importance": 0.9, "tags": ["api", "http"]}),
        ("archive_memory", {"memory_id": memory_id}),
        ("search_by_tag", {"tags": ["api"]}),
        ("restore_memory", {"memory_id": memory_id}),
        ("search_by_tag", {"tags": "http", "limit": 5}),
        ("delete_memory", {"memory_id": memory_id}),
        ("get_memory", {"memory_id": memory_id}),
    )
    assert got.structured_content["memory"]["content"] == "The API is versioned in the URL"
    assert updated.structured_content["memory"]["importance"] == 0.9
    assert updated.structured_content["memory"]["tags"] == ["api", "http"]
    assert (archived.structured_content["archived"], archived.structured_content["changed"]) == (True, True)
    assert hidden.structured_content["count"] == 0
    assert restored.structured_content["memory"]["archived"] is False
    assert [item["id"] for item in found.structured_content["memories"]] == [memory_id]
    assert deleted.structured_content == {"status": "success", "memory_id": memory_id}
    assert gone.is_error
    assert gone.structured_content == {"status": "error", "code": 404, "message": "Memory not found"}
    assert not Memory.objects.exists()


def test_update_memory_refuses_bad_input_and_changes_nothing(alice, alice_token):
    memory = MemoryFactory(owner=alice, content="Releases are cut on Mondays", importance=0.4)
    result = call(alice_token, "update_memory", {"memory_id": str(memory.pk), "importance": "very"})
    assert result.content[0].text == "'importance' must be a number"
    memory.refresh_from_db()
    assert memory.importance == 0.4


def test_store_memory_refuses_a_310_digit_integer_naming_metadata(alice, alice_token):
    result = call(alice_token, "store_memory", {"content": "x", "metadata": {"y": 10**309}})

    assert result.is_error
    assert result.structured_content["code"] == 400
    assert result.content[0].text == "'metadata' must not contain numbers beyond ±1.8e+308"
    assert not Memory.objects.exists()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            {"query": "x", "bogus": 1},
            "recall_memory: Additional properties are not allowed ('bogus' was unexpected)",
        ),
        ({"query": ["a"]}, "recall_memory: query: ['a'] is not of type 'string'"),
    ],
)
def test_recall_memory_refuses_arguments_outside_its_schema(alice_token, arguments, message):
    result = call(alice_token, "recall_memory", arguments)

    assert result.is_error
    assert message in result.content[0].text
