"""Test data made by the real services, so every row looks exactly like one the service stored.

`MemoryFactory` stores through `memories.services.store_memories` (row, embedding, graph vertex
and first quality evaluation in one transaction); `AssociationFactory` links through
`graph.services.associate_memories` (row and graph edge in one transaction). `create_batch` sends
the whole batch through one service call.

Memory fields the store service does not take (confidence, quality and boost fields, access
fields, provenance details, archiving, protection, ...) may still be given: they are written after
the store by one queryset update (`_overrides_applied`), as if the memory had since been changed.
"""

from datetime import timedelta

import factory
from django.contrib.auth import get_user_model
from django.utils import timezone
from factory.django import DjangoModelFactory

from graph.models import Association, Origin
from graph.services import Link, associate_memories
from memories.models import Memory
from memories.services import archive_memory, content_hash, store_memories

TOPICS = [
    "PostgreSQL", "Redis", "Kafka", "Django", "React", "Kubernetes", "Terraform", "GraphQL", "Celery",
    "Grafana", "Nginx", "pytest", "Sentry", "Docker", "Rust", "Go",
]  # fmt: skip
STORE_ITEM_FIELDS = [
    "content",
    "tags",
    "memory_type",
    "importance",
    "metadata",
    "source_type",
    "source_id",
    "is_explicit",
    "created_at",
]


class UserFactory(DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ["username"]

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("pw")


def _overrides_applied(memories, overrides):
    """Write the fields the store service does not take; answer the rows as they now are.

    Rows given the same overrides (a batch) are written by one UPDATE.
    """
    groups = []
    for memory, changes in zip(memories, overrides, strict=True):
        for group_changes, ids in groups:
            if group_changes == changes:
                ids.append(memory.pk)
                break
        else:
            groups.append((changes, [memory.pk]))
    for changes, ids in groups:
        if changes:
            Memory.objects.filter(pk__in=ids).update(**changes)
    if not any(changes for changes, _ in groups):
        return memories
    rows = Memory.objects.in_bulk([memory.pk for memory in memories])
    return [rows[memory.pk] for memory in memories]


def _stored(owner, rows):
    """Store `rows` (resolved factory fields) in one service call, then apply their overrides."""
    items = [{name: row.pop(name) for name in STORE_ITEM_FIELDS} for row in rows]
    results = store_memories(owner, items)
    if any(duplicate for _, duplicate in results):
        raise ValueError("the owner already has this content live (MemoryFactory takes allow_duplicate=True)")
    return _overrides_applied([memory for memory, _ in results], rows)


class MemoryFactory(DjangoModelFactory):
    """A stored memory. `days_old` backdates it (event and entry time); `quality` sets its overall and
    effective quality.

    Content equal to one of the owner's live memories is refused (the service would answer the
    existing memory) unless `allow_duplicate=True`: then the live copies are archived for the
    store and un-archived after it, as data from before the duplicate rule would be (the service
    itself never lets two live copies exist).
    """

    class Meta:
        model = Memory

    class Params:
        days_old = None
        quality = None

    owner = factory.SubFactory(UserFactory)
    content = factory.Sequence(lambda n: f"The team uses {TOPICS[n % len(TOPICS)]} for project {n}.")
    tags = factory.LazyFunction(list)
    memory_type = "Memory"
    importance = 0.5
    metadata = factory.LazyFunction(dict)
    source_type = "user_input"
    source_id = ""
    is_explicit = False
    created_at = factory.LazyAttribute(
        lambda o: None if o.days_old is None else timezone.now() - timedelta(days=o.days_old)
    )
    # A backdated memory also entered the store then (retention counts inactivity from entered_at),
    # and has not changed since.
    entered_at = factory.Maybe(
        factory.LazyAttribute(lambda o: o.days_old is not None), factory.SelfAttribute("created_at")
    )
    updated_at = factory.Maybe(
        factory.LazyAttribute(lambda o: o.days_old is not None), factory.SelfAttribute("created_at")
    )
    provenance_updated_at = factory.Maybe(
        factory.LazyAttribute(lambda o: o.days_old is not None), factory.SelfAttribute("created_at")
    )
    quality_overall = factory.Maybe(
        factory.LazyAttribute(lambda o: o.quality is not None), factory.SelfAttribute("quality")
    )
    quality_score = factory.Maybe(
        factory.LazyAttribute(lambda o: o.quality is not None), factory.SelfAttribute("quality")
    )
    allow_duplicate = False

    @classmethod
    def _create(cls, model_class, owner, allow_duplicate=False, **fields):
        if not allow_duplicate:
            return _stored(owner, [fields])[0]
        live = Memory.objects.filter(
            owner=owner, content_hash=content_hash(fields["content"]), archived_at__isnull=True
        )
        copies = [archive_memory(memory)[0].pk for memory in live]
        (memory,) = _stored(owner, [fields])
        # The service refuses to restore a twin (409); only the archive columns change here.
        Memory.objects.filter(pk__in=copies).update(archived_at=None, archive_reason="")
        return memory

    @classmethod
    def create_batch(cls, size, **kwargs):
        """`size` memories of one owner stored by one service call (one embedding batch); each
        content must be new to the owner (no `allow_duplicate` here)."""
        owner = kwargs.pop("owner", None) or UserFactory()
        rows = [vars(cls.stub(owner=owner, **kwargs)) for _ in range(size)]
        for row in rows:
            del row["owner"], row["allow_duplicate"]
        return _stored(owner, rows)


def _linked(rows):
    """Link `rows` (resolved factory fields) with one service call per owner and origin."""
    by_call = {}
    for row in rows:
        link = Link(
            row["source"].pk, row["target"].pk, row["relation_type"], row["strength"], row["properties"]
        )
        by_call.setdefault((row["source"].owner_id, row["origin"]), []).append(link)
    for (owner_id, origin), links in by_call.items():
        landed = associate_memories(owner_id, links, origin=origin)
        if len(landed) != len({link.key for link in links}):
            raise ValueError("both memories of an association must belong to the same owner")
    keys = [(row["source"].pk, row["target"].pk, row["relation_type"]) for row in rows]
    found = Association.objects.filter(source__in=[source for source, _, _ in keys])
    by_key = {(row.source_id, row.target_id, row.relation_type): row for row in found}
    return [by_key[key] for key in keys]


class AssociationFactory(DjangoModelFactory):
    """An association and its graph edge. Both memories must have the same owner."""

    class Meta:
        model = Association

    source = factory.SubFactory(MemoryFactory)
    target = factory.SubFactory(MemoryFactory, owner=factory.SelfAttribute("..source.owner"))
    relation_type = "RELATES_TO"
    strength = 0.5
    properties = factory.LazyFunction(dict)
    origin = Origin.USER

    @classmethod
    def _create(cls, model_class, **fields):
        return _linked([fields])[0]

    @classmethod
    def create_batch(cls, size, **kwargs):
        """`size` associations written by one service call; give `source` and `target`, e.g.
        `AssociationFactory.create_batch(len(others), source=hub, target=factory.Iterator(others))`."""
        return _linked([vars(cls.stub(**kwargs)) for _ in range(size)])
