import uuid

import factory
import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from graph import age
from graph.models import Association
from memories import services as memory_services
from tests.factories import AssociationFactory, MemoryFactory


@pytest.fixture
def linked(alice):
    steps = [f"Release checklist step {n}" for n in range(4)]
    memories = MemoryFactory.create_batch(4, owner=alice, content=factory.Iterator(steps))
    AssociationFactory.create_batch(
        4,
        source=factory.Iterator(memories),
        target=factory.Iterator(memories[1:] + memories[:1]),
        relation_type=factory.Iterator(["LEADS_TO", "PART_OF", "RELATES_TO", "CONTRADICTS"]),
        strength=0.6,
    )
    return memories


def test_delete_associate_removes_the_edge_from_table_and_graph(alice_client, linked, graph_agrees):
    a, b = linked[0], linked[1]
    response = alice_client.delete(
        "/associate", {"memory1_id": str(a.pk), "memory2_id": str(b.pk), "type": "leads_to"}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["removed_count"] == 1
    assert not Association.objects.filter(source=a, target=b).exists()
    graph_agrees()
    again = alice_client.delete(
        "/associate", {"memory1_id": str(a.pk), "memory2_id": str(b.pk)}, format="json"
    )
    assert again.status_code == 404
    assert again.json()["message"] == "Association not found"


def test_delete_association_by_id_is_owner_scoped(alice_client, bob_client, linked, graph_agrees):
    association = Association.objects.first()
    assert bob_client.delete(f"/association/{association.pk}").status_code == 404
    assert alice_client.delete(f"/association/{association.pk}").status_code == 200
    assert not Association.objects.filter(pk=association.pk).exists()
    graph_agrees()


def test_deleting_a_memory_removes_its_vertex_and_edges(alice, linked, graph_agrees):
    memory_services.delete_memory(linked[1])
    assert Association.objects.count() == 2
    graph_agrees()
    with age.nested_loop_plan():
        rows = age.hop([str(linked[0].pk)])
    assert rows == [(str(linked[0].pk), str(linked[3].pk), "CONTRADICTS", 0.6, False)]


def test_graph_check_reports_every_kind_of_drift_and_rebuild_repairs_it(alice, linked, capsys):
    call_command("graph_check")
    ghost = str(uuid.uuid4())
    age.cypher("CREATE (:Memory {id: $id, owner: 0})", {"id": ghost})
    age.remove_edges("LEADS_TO", [(linked[0].pk, linked[1].pk)])
    Association.objects.filter(relation_type="PART_OF").update(strength=0.1)
    with connection.cursor() as cursor:
        cursor.execute(
            'DELETE FROM memsite."Memory" WHERE ag_catalog.agtype_access_operator('
            "VARIADIC ARRAY[properties, '\"id\"'::ag_catalog.agtype]) = %s::text::ag_catalog.agtype",
            [f'"{linked[3].pk}"'],
        )
    kinds = {kind for kind, _ in age.differences()}
    assert {"extra_vertex", "missing_vertex", "missing_edge", "strength_mismatch"} <= kinds
    with pytest.raises(CommandError):
        call_command("graph_check")
    call_command("graph_rebuild")
    assert age.differences() == []
    call_command("graph_check")
    assert "Graph and tables agree." in capsys.readouterr().out
