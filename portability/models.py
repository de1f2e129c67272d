from django.conf import settings
from django.db import models


class ImportRun(models.Model):
    """One import of a file into an owner's memories: its lines wait in ImportLine, `next_line`
    is where a (resumed) run goes on, the counts grow with each batch in that batch's transaction."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="imports")
    format = models.CharField(max_length=30)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED)
    total_lines = models.PositiveIntegerField(default=0)
    next_line = models.PositiveIntegerField(default=1)
    imported = models.PositiveIntegerField(default=0)
    skipped = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    counts = models.JSONField(
        default=dict, blank=True, help_text="per kind: imported, skipped and failed records"
    )
    failures = models.JSONField(default=list, blank=True, help_text="the first 100: line and reason")
    dry_run = models.BooleanField(default=False, help_text="report what would happen, write nothing")
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"Import #{self.pk} of {self.format} ({self.status})"

    def progress(self):
        """The counts so far, without the failures."""
        summary = self.summary()
        del summary["failures"]
        return summary

    def summary(self):
        return {
            "import_id": self.pk,
            "status": self.status,
            "format": self.format,
            "lines": self.total_lines,
            "done_lines": self.next_line - 1,
            "imported": self.imported,
            "skipped": self.skipped,
            "failed": self.failed,
            "counts": self.counts,
            "dry_run": self.dry_run,
            "failures": self.failures,
        }


class ImportLine(models.Model):
    """One line of an import's file, in memsite's format, as received (converted from a peer's)."""

    run = models.ForeignKey(ImportRun, on_delete=models.CASCADE, related_name="lines")
    number = models.PositiveIntegerField()
    text = models.TextField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "number"], name="import_line_unique_number")]

    def __str__(self):
        return f"{self.run_id}:{self.number}"


class ImportedRecord(models.Model):
    """A record of a file that landed for an owner, by its id in the file: importing it again finds
    it here and changes nothing. A memory's record points to the memory it became."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=20)
    source_id = models.CharField(max_length=200)
    memory = models.ForeignKey("memories.Memory", null=True, on_delete=models.CASCADE, related_name="+")
    run = models.ForeignKey(ImportRun, null=True, on_delete=models.SET_NULL, related_name="+")
    line = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "kind", "source_id"], name="imported_record_unique")
        ]

    def __str__(self):
        return f"{self.kind} {self.source_id}"
