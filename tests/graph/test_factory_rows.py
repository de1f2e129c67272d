"""The test factories make rows exactly as the services store them, graph mirror included."""

import factory
import pytest
from django.core.management import call_command

from quality.models import QualityAssessment
from tests.factories import AssociationFactory, MemoryFactory

pytestmark = pytest.mark.django_db


def test_factory_rows_pass_graph_check(alice, bob, capsys):
    hub = MemoryFactory(owner=alice, quality=0.6, days_old=40, protected=True)
    others = MemoryFactory.create_batch(4, owner=alice, access_count=3)
    AssociationFactory.create_batch(4, source=hub, target=factory.Iterator(others))
    AssociationFactory(source=others[0], target=others[1], relation_type="SIMILAR_TO", origin="enrichment")
    MemoryFactory(owner=alice, content=others[2].content, allow_duplicate=True)
    AssociationFactory(source__owner=bob)

    call_command("graph_check")

    assert "Graph and tables agree." in capsys.readouterr().out


def test_a_factory_memory_is_stored_evaluated_and_then_given_its_overrides(alice):
    memory = MemoryFactory(
        owner=alice, content="The boiler was serviced in March", quality=0.2, access_count=7
    )

    assert len(memory.embedding) == 384
    assert memory.quality_evaluated_at is not None
    assert list(QualityAssessment.objects.filter(memory=memory).values_list("trigger", flat=True)) == [
        "store"
    ]
    assert (memory.quality_overall, memory.quality_score, memory.access_count) == (0.2, 0.2, 7)


def test_the_factory_refuses_a_live_duplicate_unless_asked(alice):
    first = MemoryFactory(owner=alice, content="Lunch is at noon")

    with pytest.raises(ValueError, match="allow_duplicate"):
        MemoryFactory(owner=alice, content="Lunch is at noon")
    second = MemoryFactory(owner=alice, content="Lunch is at noon", allow_duplicate=True)

    assert first.pk != second.pk
    assert first.content_hash == second.content_hash
    first.refresh_from_db()
    assert first.archived_at is None
