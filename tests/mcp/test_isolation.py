import pytest

from graph.models import Association, Origin
from memories.models import Memory
from quality.models import Inconsistency
from tests.factories import MemoryFactory
from tests.mcp.conftest import calls

pytestmark = pytest.mark.django_db(transaction=True)


def test_another_users_memories_and_findings_are_not_found(alice, bob_token):
    mine = MemoryFactory(owner=alice, content="Alice's deploy key rotates monthly")
    other = MemoryFactory(owner=alice, content="Alice's laptop is a ThinkPad")
    finding = Inconsistency.objects.create(
        type=Inconsistency.Type.DUPLICATE, memory1=mine, memory2=other, severity=0.9, description="x"
    )
    memory_id = str(mine.pk)
    results = calls(
        bob_token,
        ("get_memory", {"memory_id": memory_id}),
        ("update_memory", {"memory_id": memory_id, "content": "stolen"}),
        ("archive_memory", {"memory_id": memory_id}),
        ("restore_memory", {"memory_id": memory_id}),
        ("delete_memory", {"memory_id": memory_id}),
        ("memory_quality", {"memory_id": memory_id}),
    )
    for result in results:
        assert result.structured_content == {"status": "error", "code": 404, "message": "Memory not found"}
    link = {"memory1_id": memory_id, "memory2_id": str(other.pk), "type": "LEADS_TO", "strength": 0.5}
    linked, resolved, recalled, listed = calls(
        bob_token,
        ("associate_memories", link),
        ("resolve_inconsistency", {"inconsistency_id": finding.pk, "action": "dismiss"}),
        ("recall_memory", {"query": "deploy key"}),
        ("list_inconsistencies", {}),
    )
    assert linked.structured_content["message"] == "One or both memories do not exist"
    assert resolved.structured_content["message"] == "Inconsistency not found"
    assert recalled.structured_content["count"] == 0
    assert listed.structured_content["count"] == 0
    assert Memory.objects.get(pk=mine.pk).content == "Alice's deploy key rotates monthly"
    assert not Association.objects.filter(origin=Origin.USER).exists()
    finding.refresh_from_db()
    assert finding.status == "open"
