from django.conf import settings
from django.db import models
from django.db.models import F, Q

AUTHORABLE_RELATIONS = {
    "RELATES_TO": [],
    "LEADS_TO": [],
    "OCCURRED_BEFORE": [],
    "PREFERS_OVER": ["context", "reason"],
    "EXEMPLIFIES": ["pattern_type", "confidence"],
    "CONTRADICTS": ["resolution", "reason"],
    "REINFORCES": ["observations"],
    "INVALIDATED_BY": ["reason", "timestamp"],
    "EVOLVED_INTO": ["confidence", "reason"],
    "DERIVED_FROM": ["transformation", "confidence"],
    "PART_OF": ["role", "context"],
}
SYSTEM_RELATIONS = {
    "SIMILAR_TO": ["score"],
    "PRECEDED_BY": ["count"],
    "DISCOVERED": ["kind", "confidence", "similarity", "origin"],
}
RELATION_PROPERTIES = {**AUTHORABLE_RELATIONS, **SYSTEM_RELATIONS}
HIDDEN_RELATIONS = {"DISCOVERED"}


class Origin(models.TextChoices):
    USER = "user"
    ENRICHMENT = "enrichment"
    CONSOLIDATION = "consolidation"


class Association(models.Model):
    """A typed, directed edge between two memories; mirrored as an edge in the AGE graph."""

    source = models.ForeignKey("memories.Memory", on_delete=models.CASCADE, related_name="outgoing")
    target = models.ForeignKey("memories.Memory", on_delete=models.CASCADE, related_name="incoming")
    relation_type = models.CharField(max_length=30, choices=[(name, name) for name in RELATION_PROPERTIES])
    strength = models.FloatField(default=0.5)
    properties = models.JSONField(default=dict, blank=True)
    origin = models.CharField(max_length=20, choices=Origin.choices, default=Origin.USER)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["source", "target", "relation_type"], name="association_unique_edge"
            ),
            models.CheckConstraint(condition=~Q(source=F("target")), name="association_no_self_link"),
            models.CheckConstraint(
                condition=Q(strength__gte=0, strength__lte=1), name="association_strength_unit"
            ),
        ]
        indexes = [
            models.Index(fields=["target", "relation_type"], name="association_target_type"),
            models.Index(fields=["origin"], name="association_origin"),
            # Recall's context component follows PRECEDED_BY both ways from every candidate; these
            # stay small whatever the number of other associations.
            models.Index(
                fields=["source"],
                condition=Q(relation_type="PRECEDED_BY"),
                name="association_preceded_source",
            ),
            models.Index(
                fields=["target"],
                condition=Q(relation_type="PRECEDED_BY"),
                name="association_preceded_target",
            ),
            # The boosts page asks which boosted memories rest on their DISCOVERED links.
            models.Index(
                fields=["source"],
                condition=Q(relation_type="DISCOVERED"),
                name="association_discovered_source",
            ),
            models.Index(
                fields=["target"],
                condition=Q(relation_type="DISCOVERED"),
                name="association_discovered_target",
            ),
            # The overview's facts superseded per week.
            models.Index(
                fields=["created_at"],
                include=["origin", "id"],
                condition=Q(relation_type="INVALIDATED_BY"),
                name="association_invalidated_time",
            ),
        ]

    def __str__(self):
        return f"{self.source_id} -[{self.relation_type}]-> {self.target_id}"


class EnrichmentStatus(models.TextChoices):
    PENDING = "pending"
    DONE = "done"
    FAILED = "failed"


class Enrichment(models.Model):
    """Where the automatic enrichment of one memory stands (pending until it has run once)."""

    memory = models.OneToOneField(
        "memories.Memory", on_delete=models.CASCADE, primary_key=True, related_name="enrichment"
    )
    status = models.CharField(
        max_length=10, choices=EnrichmentStatus.choices, default=EnrichmentStatus.PENDING
    )
    attempts = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True, default="")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["status", "updated_at"], name="enrichment_status")]

    def __str__(self):
        return f"{self.memory_id}: {self.status}"


class DiscoveryReview(models.Model):
    """A curator's decision on a discovered pair (deleted or promoted): discovery never re-creates it.

    The pair is unordered and stored with memory1 < memory2; both memories belong to one owner.
    """

    class Verdict(models.TextChoices):
        REJECTED = "rejected"
        PROMOTED = "promoted"

    memory1 = models.ForeignKey("memories.Memory", on_delete=models.CASCADE, related_name="+")
    memory2 = models.ForeignKey("memories.Memory", on_delete=models.CASCADE, related_name="+")
    verdict = models.CharField(max_length=10, choices=Verdict.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["memory1", "memory2"], name="discovery_review_unique_pair"),
            models.CheckConstraint(condition=Q(memory1__lt=F("memory2")), name="discovery_review_ordered"),
        ]

    def __str__(self):
        return f"{self.memory1_id} ~ {self.memory2_id}: {self.verdict}"


class EntityAlias(models.Model):
    """A name that stands for another of the same owner's entities: a first name ("zoë") for the
    full name first tagged with it ("zoë-o-brien"). Enrichment tags the entity, never the alias."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    alias = models.CharField(max_length=100)
    entity = models.CharField(max_length=100)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "alias"], name="entity_alias_unique")]

    def __str__(self):
        return f"{self.alias} → {self.entity}"
