from django.conf import settings
from django.db import models
from django.db.models import Q

from memories.models import EmbeddingField


class Trigger(models.TextChoices):
    STORE = "store"
    UPDATE = "update"
    CORROBORATE = "corroborate"
    EVALUATE = "evaluate"
    CONSOLIDATION = "consolidation"
    FINDING = "finding"
    SUPERSESSION = "supersession"


class QualityAssessment(models.Model):
    """One evaluation of a memory's five quality dimensions."""

    memory = models.ForeignKey("memories.Memory", on_delete=models.CASCADE, related_name="assessments")
    accuracy = models.FloatField()
    completeness = models.FloatField()
    consistency = models.FloatField()
    timeliness = models.FloatField()
    relevance = models.FloatField()
    overall = models.FloatField()
    weights = models.JSONField(default=dict)
    query = models.CharField(max_length=2000, blank=True, default="")
    trigger = models.CharField(max_length=20, choices=Trigger.choices)
    evaluated_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-evaluated_at"]
        indexes = [
            models.Index(fields=["memory", "-evaluated_at"], name="assessment_memory_time"),
            models.Index(fields=["evaluated_at"], name="assessment_time"),
            # The daily quality trend of the evaluations outside consolidation, read from the index.
            models.Index(
                fields=["evaluated_at"],
                include=["overall", "id"],
                condition=Q(query="") & ~Q(trigger=Trigger.CONSOLIDATION),
                name="assessment_trend",
            ),
        ]

    def __str__(self):
        return f"{self.memory_id} {self.overall:.3f} ({self.trigger})"


class ConsolidationRun(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.RUNNING)
    dry_run = models.BooleanField(default=True)
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    parameters = models.JSONField(default=dict)
    phase = models.CharField(max_length=40, blank=True, default="")
    phases = models.JSONField(default=dict, help_text="per phase: counts and duration_ms")
    error = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-started_at"]

    def __str__(self):
        kind = "dry run" if self.dry_run else "run"
        return f"Consolidation {kind} #{self.pk} ({self.status})"


class QualityBoost(models.Model):
    class Kind(models.TextChoices):
        APPLIED = "applied"
        RECOMPUTED = "recomputed"
        DECAYED = "decayed"
        RESET = "reset"
        BIDIRECTIONAL = "bidirectional"

    memory = models.ForeignKey("memories.Memory", on_delete=models.CASCADE, related_name="boosts")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    connection_count = models.PositiveIntegerField(default=0)
    quality_before = models.FloatField()
    quality_after = models.FloatField()
    factor = models.FloatField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    run = models.ForeignKey(
        ConsolidationRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="boosts"
    )

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["memory", "-created_at"], name="boost_memory_time")]

    def __str__(self):
        return f"{self.kind} {self.quality_before:.3f} → {self.quality_after:.3f}"


class Inconsistency(models.Model):
    class Type(models.TextChoices):
        CONTRADICTION = "contradiction"
        DUPLICATE = "duplicate"
        OUTDATED = "outdated"
        LOW_CONFIDENCE = "low_confidence"
        SUPERSEDED = "superseded"

    class Status(models.TextChoices):
        OPEN = "open"
        RESOLVED = "resolved"
        DISMISSED = "dismissed"

    type = models.CharField(max_length=20, choices=Type.choices)
    memory1 = models.ForeignKey("memories.Memory", on_delete=models.CASCADE, related_name="+")
    memory2 = models.ForeignKey(
        "memories.Memory", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    severity = models.FloatField()
    description = models.TextField()
    # What a `superseded` finding rests on (memory1 is the older memory, memory2 the newer):
    # confidence, signals, attribute, older_value and newer_value.
    details = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.OPEN)
    resolution = models.CharField(max_length=40, blank=True, default="")
    detected_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    note = models.TextField(blank=True, db_default="", help_text="the reviewer's note on the decision")
    reclassified_from = models.CharField(
        max_length=20,
        blank=True,
        db_default="",
        help_text="the type detection gave the finding before a reviewer changed it",
    )

    class Meta:
        ordering = ["-severity", "-detected_at"]
        verbose_name_plural = "inconsistencies"
        constraints = [
            models.UniqueConstraint(
                fields=["type", "memory1", "memory2"],
                name="inconsistency_unique_pair",
                nulls_distinct=False,
            ),
            models.CheckConstraint(
                condition=Q(severity__gte=0, severity__lte=1), name="inconsistency_severity_unit"
            ),
        ]
        indexes = [
            models.Index(fields=["status", "type"], name="inconsistency_status_type"),
            # The admin's list, most severe and newest first.
            models.Index(fields=["-severity", "-detected_at", "-id"], name="inconsistency_review_order"),
        ]

    def __str__(self):
        return f"{self.type}: {self.description[:60]}"


class QualitySnapshot(models.Model):
    """Aggregate quality statistics at one moment, per owner, for trend charts."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="quality_snapshots"
    )
    taken_at = models.DateTimeField(auto_now_add=True)
    total = models.PositiveIntegerField()
    average_quality = models.FloatField()
    high_count = models.PositiveIntegerField()
    medium_count = models.PositiveIntegerField()
    low_count = models.PositiveIntegerField()
    boosted_count = models.PositiveIntegerField(default=0)
    open_inconsistencies = models.PositiveIntegerField(default=0)
    dimensions = models.JSONField(default=dict)
    run = models.ForeignKey(
        ConsolidationRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="snapshots"
    )

    class Meta:
        ordering = ["-taken_at"]
        indexes = [models.Index(fields=["owner", "taken_at"], name="snapshot_owner_time")]

    def __str__(self):
        return f"{self.owner_id} @ {self.taken_at:%Y-%m-%d %H:%M}: {self.average_quality:.3f}"


class MemoryReading(models.Model):
    """What the fact reader noted about a memory's content (quality/facts), kept per content hash:
    its cues and the vector of its frame (the text with its values masked). The supersession
    proposals compare readings instead of reading every text again."""

    memory = models.OneToOneField(
        "memories.Memory", on_delete=models.CASCADE, primary_key=True, related_name="reading"
    )
    content_hash = models.CharField(max_length=64)
    reading = models.JSONField(default=dict)
    frame = EmbeddingField(dimensions=settings.EMBEDDING_DIMENSIONS)
    read_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"reading of {self.memory_id}"


class PairRelation(models.Model):
    """How the relation model (quality.facts.relation) read two contents, the older first: the
    probabilities that they conflict and that they state the same fact. Kept per pair of content
    hashes and per model (a digest of its adapter), so that detection runs judge again without
    reading again, and a retrained model reads every pair anew."""

    model = models.CharField(max_length=16)
    older_hash = models.CharField(max_length=64)
    newer_hash = models.CharField(max_length=64)
    conflicting = models.FloatField()
    same = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["model", "older_hash", "newer_hash"], name="pair_relation_key")
        ]

    def __str__(self):
        return f"{self.older_hash[:8]} → {self.newer_hash[:8]}: {self.conflicting:.2f} / {self.same:.2f}"
