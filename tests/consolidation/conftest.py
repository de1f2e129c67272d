from datetime import timedelta

import pytest
from django.utils import timezone

from graph.models import Association
from memories import embeddings
from memories.models import Memory
from memories.services import content_hash

TOPICS = [
    "PostgreSQL", "Redis", "Kafka", "Django", "React", "Kubernetes", "Terraform", "GraphQL", "Celery",
    "Grafana", "Nginx", "pytest", "Sentry", "Docker", "Rust", "Go",
]  # fmt: skip
_VECTORS = {}


def _vectors(contents):
    missing = [content for content in dict.fromkeys(contents) if content not in _VECTORS]
    if missing:
        _VECTORS.update(zip(missing, embeddings.embed_many(missing), strict=True))
    return [_VECTORS[content] for content in contents]


def make_memories(owner, count, quality=0.5, days_old=0, **fields):
    """`count` memory rows with real embeddings and the given overall (and effective) quality.

    Contents repeat across calls (rows may share content), so each text is embedded only once.
    """
    contents = [f"The team uses {TOPICS[i % len(TOPICS)]} for project {i}." for i in range(count)]
    vectors = _vectors(contents)
    moment = timezone.now() - timedelta(days=days_old)
    rows = [
        Memory(
            owner=owner,
            content=content,
            content_hash=content_hash(content),
            embedding=vector,
            created_at=moment,
            entered_at=moment,
            updated_at=moment,
            provenance_updated_at=moment,
            quality_overall=quality,
            quality_score=quality,
            **fields,
        )
        for content, vector in zip(contents, vectors, strict=True)
    ]
    return Memory.objects.bulk_create(rows)


def link(first, second, relation_type="RELATES_TO", origin="user"):
    return Association.objects.create(
        source=first, target=second, relation_type=relation_type, strength=0.5, origin=origin
    )


def hub(owner, connections, quality=0.5, neighbour_quality=0.5, **fields):
    """A memory with `connections` distinct neighbours, each linked to it by a user association."""
    (centre,) = make_memories(owner, 1, quality, **fields)
    for neighbour in make_memories(owner, connections, neighbour_quality):
        link(centre, neighbour)
    return centre


def fresh(memory):
    return Memory.objects.get(pk=memory.pk)


@pytest.fixture
def boost_settings(settings):
    """The seed's defaults, with the future phases off unless a test turns one on."""
    settings.BOOST_ENABLED = True
    settings.BOOST_MIN_CONNECTIONS = 5
    settings.BOOST_FACTOR = 1.2
    settings.BOOST_MIN_CONNECTED_QUALITY = None
    settings.BOOST_DECAY_ENABLED = False
    settings.BOOST_BIDIRECTIONAL_ENABLED = False
    settings.BOOST_COUNT_ENRICHMENT_EDGES = False
    return settings
