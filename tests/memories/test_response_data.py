"""The response data built without DRF's per-field machinery is what the documented serializers give."""

from datetime import timedelta

import pytest
from django.http import QueryDict
from django.utils import timezone

from graph.queries import Edge
from memories import recall
from memories.api import serializers as s
from memories.api.recall_spec import recall_options
from tests.factories import AssociationFactory, MemoryFactory

pytestmark = pytest.mark.django_db


def test_a_memory_with_every_optional_field_set_is_rendered_as_its_serializer_renders_it(alice):
    now = timezone.now()
    other = MemoryFactory(owner=alice, content="The office moved to Leith in March")
    memory = MemoryFactory(
        owner=alice,
        content="The office is in Leith, near the harbour",
        tags=["office", "edinburgh"],
        metadata={"room": 4, "floors": [1, 2]},
        corroborating_sources=["wiki", "email"],
        last_accessed_at=now - timedelta(hours=3),
        access_count=7,
        protected=True,
        relevance_score=0.42,
        quality_boost_applied=True,
        quality_boost_date=now - timedelta(days=2),
        quality_boost_reason="linked by three memories",
        quality_boost_connection_count=3,
        original_quality_before_boost=0.5,
        quality_boost_factor=1.1,
        archived_at=now,
        archive_reason="superseded",
    )
    memory.refresh_from_db()

    assert s.memory_data(memory) == s.MemorySerializer().to_representation(memory)
    assert s.memory_data(other) == s.MemorySerializer().to_representation(other)


def test_recall_results_with_relations_are_rendered_as_their_serializer_renders_them(alice):
    first = MemoryFactory(owner=alice, content="Greta plays the cello in the city orchestra")
    second = MemoryFactory(owner=alice, content="Greta's cello was made in Cremona")
    found = recall.recall(alice, recall_options(QueryDict("query=Greta+cello&limit=5")), record_access=False)
    results = found["results"]
    assert len(results) == 2
    stored = AssociationFactory(source=first, target=second, relation_type="RELATES_TO", strength=0.8)
    edge = Edge(str(first.pk), str(second.pk), "RELATES_TO", 0.8)
    results[0].relations = [edge.seen_from(str(results[0].memory.pk), stored)]

    for result in results:
        assert s.recall_result_data(result) == s.RecallResultSerializer().to_representation(result)
