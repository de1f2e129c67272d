import io
import json

import pytest
from django.utils import timezone

from graph.models import Origin
from memories.services import archive_memory
from portability import exports, services
from quality.models import Inconsistency, QualityBoost
from tests.factories import AssociationFactory, MemoryFactory


def exported(owner, **options):
    return "".join(exports.export_lines(owner, **options))


def records(text):
    return [json.loads(line) for line in text.splitlines()]


def imported(owner, text):
    """Take `text` in and run its import for `owner`; answers the summary."""
    run = services.take_in(owner, io.BytesIO(text.encode("utf-8")))
    return services.run_import(run.pk)


@pytest.fixture
def alice_data(alice):
    """Alice's memories: tags, metadata, an archived one, a superseded one, associations with
    properties, a finding and a boost."""
    first, second, third, old, new = (
        MemoryFactory(
            owner=alice, content="Alice deploys on Fridays.", tags=["deploy", "habit"], importance=0.8
        ),
        MemoryFactory(
            owner=alice, content="The staging cluster runs Kubernetes 1.31.", metadata={"env": "staging"}
        ),
        MemoryFactory(
            owner=alice, content="Alice once preferred tabs.", memory_type="Preference", days_old=400
        ),
        MemoryFactory(owner=alice, content="The office is in Lyon.", days_old=30),
        MemoryFactory(owner=alice, content="The office moved to Grenoble.", days_old=2),
    )
    archive_memory(third, "manual")
    AssociationFactory(
        source=first,
        target=second,
        relation_type="PREFERS_OVER",
        strength=0.9,
        properties={"context": "deploys", "reason": "calmer"},
    )
    AssociationFactory(
        source=old, target=new, relation_type="INVALIDATED_BY", strength=1.0, properties={"reason": "moved"}
    )
    AssociationFactory(
        source=second,
        target=first,
        relation_type="SIMILAR_TO",
        origin=Origin.ENRICHMENT,
        properties={"score": 0.7},
    )
    Inconsistency.objects.create(
        type="contradiction", memory1=first, memory2=second, severity=0.6, description="Fridays or not"
    )
    QualityBoost.objects.create(
        memory=first, kind="applied", connection_count=6, quality_before=0.5, quality_after=0.6, factor=1.2
    )
    return {"first": first, "second": second, "third": third, "old": old, "new": new, "at": timezone.now()}
