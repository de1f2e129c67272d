import subprocess

import pytest

from quality.models import Inconsistency
from tests.factories import MemoryFactory
from tests.mcp.conftest import session, stdio_parameters

pytestmark = pytest.mark.django_db(transaction=True)


async def every_tool(client, finding):
    """Call each tool once with good arguments; answer {tool: result}."""
    results = {}

    async def use(name, arguments=None):
        results[name] = await client.call_tool(name, arguments or {})
        return results[name].structured_content

    stored = await use("store_memory", {"content": "Our CI runs on GitHub Actions", "tags": ["ci"]})
    memory_id = stored["memory_id"]
    other = str(finding.memory1_id)
    await use("recall_memory", {"query": "continuous integration", "expand_relations": True})
    await use("get_memory", {"memory_id": memory_id})
    await use("update_memory", {"memory_id": memory_id, "importance": 0.8})
    link = {"memory1_id": memory_id, "memory2_id": other, "type": "RELATES_TO", "strength": 0.6}
    await use("associate_memories", link)
    await use("search_by_tag", {"tags": ["ci"]})
    await use("archive_memory", {"memory_id": memory_id})
    await use("restore_memory", {"memory_id": memory_id})
    await use("memory_quality", {"memory_id": memory_id})
    await use("quality_report")
    await use("list_inconsistencies", {"status": "open"})
    await use("resolve_inconsistency", {"inconsistency_id": finding.pk, "action": "keep_both"})
    await use("check_health")
    await use("delete_memory", {"memory_id": memory_id})
    return results


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_every_tool_answers_over_both_transports(alice, alice_token, transport):
    first, second = (
        MemoryFactory(owner=alice, content="Builds take ten minutes"),
        MemoryFactory(owner=alice, content="Builds take 10 minutes"),
    )
    finding = Inconsistency.objects.create(
        type=Inconsistency.Type.DUPLICATE, memory1=first, memory2=second, severity=0.97, description="same"
    )

    async def scenario(client):
        return len((await client.list_tools()).tools), await every_tool(client, finding)

    listed, results = session(alice_token, scenario, transport)
    assert listed == len(results) == 14
    for name, result in results.items():
        assert not result.is_error, (name, result.content)
        assert result.content[0].text, name
    assert results["associate_memories"].structured_content["success"] is True
    assert results["resolve_inconsistency"].structured_content["status"] == "resolved"
    health = results["check_health"].structured_content
    assert (health["database"], health["pgvector"], health["age"]) == ("ok", "ok", "ok")
    assert health["queue"]["waiting"] >= 1  # the stores queued their enrichment; no worker runs here


@pytest.mark.parametrize(
    ("token", "message"),
    [("", "MEMSITE_MCP_TOKEN is not set"), ("abc.def", "MEMSITE_MCP_TOKEN is not a valid API token")],
)
def test_stdio_refuses_to_start_without_a_valid_token(token, message):
    parameters = stdio_parameters(token)
    finished = subprocess.run(
        [parameters.command, *parameters.args],
        cwd=parameters.cwd,
        env=parameters.env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert finished.returncode == 1
    assert message in finished.stderr
    assert finished.stdout == ""
