import pytest

from graph.models import AUTHORABLE_RELATIONS
from memories.api.recall_spec import RECALL_FIELDS
from memsite.api.specs import body_schema
from tests.mcp.conftest import session

pytestmark = pytest.mark.django_db(transaction=True)
READS = {
    "recall_memory",
    "get_memory",
    "search_by_tag",
    "memory_quality",
    "quality_report",
    "list_inconsistencies",
    "check_health",
}
WRITES = {
    "store_memory",
    "update_memory",
    "delete_memory",
    "archive_memory",
    "restore_memory",
    "associate_memories",
    "resolve_inconsistency",
}


def listed_tools(token):
    async def scenario(client):
        return {tool.name: tool for tool in (await client.list_tools()).tools}

    return session(token, scenario)


@pytest.fixture
def tools(alice_token):
    return listed_tools(alice_token)


def test_every_tool_is_listed(tools):
    assert set(tools) == READS | WRITES


def test_every_tool_has_a_description_and_input_and_output_schemas(tools):
    for tool in tools.values():
        assert len(tool.description) > 40, tool.name
        assert tool.input_schema["type"] == "object", tool.name
        assert tool.output_schema["type"] == "object", tool.name
        assert tool.output_schema["properties"], tool.name


def test_reads_are_annotated_read_only_and_writes_are_not(tools):
    for name in READS:
        assert tools[name].annotations.read_only_hint is True, name
        assert tools[name].annotations.destructive_hint is False, name
    for name in WRITES:
        assert tools[name].annotations.read_only_hint is False, name


def test_only_delete_update_and_resolve_are_destructive(tools):
    destructive = {name for name in WRITES if tools[name].annotations.destructive_hint}
    assert destructive == {"delete_memory", "update_memory", "resolve_inconsistency"}


def test_associate_memories_is_idempotent(tools):
    assert tools["associate_memories"].annotations.idempotent_hint is True
    assert tools["resolve_inconsistency"].annotations.idempotent_hint is False


def test_associate_memories_advertises_the_seed_input_schema(tools):
    schema = tools["associate_memories"].input_schema
    properties = schema["properties"]
    assert "required" not in schema
    assert properties["type"]["enum"] == sorted(AUTHORABLE_RELATIONS)
    assert len(properties["type"]["enum"]) == 11
    assert (properties["strength"]["minimum"], properties["strength"]["maximum"]) == (0, 1)
    assert (properties["associations"]["minItems"], properties["associations"]["maxItems"]) == (1, 500)
    item = properties["associations"]["items"]["properties"]
    assert set(item) == {"memory1_id", "memory2_id", "type", "strength"}
    assert {"reason", "context", "confidence", "role"} <= set(properties)


def test_associate_memories_advertises_the_seed_output_schema(tools):
    schema = tools["associate_memories"].output_schema
    assert set(schema["required"]) == {"success", "message"}
    assert {"created_count", "failed_count", "succeeded", "failed", "summary"} <= set(schema["properties"])


def test_recall_memory_takes_every_recall_parameter(tools):
    advertised = set(tools["recall_memory"].input_schema["properties"])
    assert advertised == set(body_schema(RECALL_FIELDS)["properties"])


def test_every_tool_advertises_that_it_takes_no_other_arguments(tools):
    assert all(tool.input_schema["additionalProperties"] is False for tool in tools.values())
