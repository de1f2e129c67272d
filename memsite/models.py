import hashlib
import hmac
import secrets

from django.conf import settings
from django.db import models


def _digest(secret):
    return hashlib.sha256(secret.encode()).hexdigest()


class ApiToken(models.Model):
    """A per-user API token. Only a digest of the secret is stored.

    A token reads `<prefix>.<secret>`: the prefix finds the row, the secret is compared in
    constant time against the stored digest.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, default="default")
    prefix = models.CharField(max_length=12, unique=True, editable=False)
    digest = models.CharField(max_length=64, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "API token"

    def __str__(self):
        return f"{self.user} / {self.name} ({self.prefix}…)"

    @classmethod
    def issue(cls, user, name="default"):
        """Create a token for `user` and return (token row, the plain token shown once)."""
        prefix = secrets.token_hex(6)
        secret = secrets.token_urlsafe(32)
        token = cls.objects.create(user=user, name=name, prefix=prefix, digest=_digest(secret))
        return token, f"{prefix}.{secret}"

    @classmethod
    def find(cls, plain):
        """The active user's token matching `plain`, or None."""
        prefix, _, secret = plain.partition(".")
        # The prefix is unique: no ordering (as first() would add) is needed to pick the row.
        token = next(iter(cls.objects.select_related("user").filter(prefix=prefix)[:1]), None)
        candidate = token.digest if token else _digest("")
        if not hmac.compare_digest(candidate, _digest(secret)) or token is None:
            return None
        return token if token.user.is_active else None


class RateBucket(models.Model):
    """One client's request allowance (GCRA), kept by a single upsert (api/throttling.py).

    The table is UNLOGGED (migration 0007): counting a request writes no WAL to flush, and a
    crash of PostgreSQL empties it, giving every client a fresh allowance.
    """

    scope = models.CharField(max_length=20)
    ident = models.CharField(max_length=200)
    tat = models.FloatField(help_text="theoretical arrival time of the next request, epoch seconds")
    allowed = models.BooleanField(default=True, help_text="whether the last request was let through")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["scope", "ident"], name="ratebucket_scope_ident")]
        indexes = [models.Index(fields=["tat"], name="ratebucket_tat")]

    def __str__(self):
        return f"{self.scope} {self.ident} until {self.tat}"


class JobOutcome(models.Model):
    """One attempt of a background job: how long it ran and, when it failed, why.

    Procrastinate keeps each job's status; this keeps what its tables do not: durations for
    /metrics and the error a failed job ended with, for the Jobs page.
    """

    job_id = models.BigIntegerField(db_index=True)
    task_name = models.CharField(max_length=128)
    attempt = models.PositiveIntegerField()
    finished_at = models.DateTimeField(auto_now_add=True, db_index=True)
    duration_ms = models.PositiveIntegerField()
    error = models.TextField(blank=True, default="")
    result = models.JSONField(null=True, blank=True, help_text="what the job answered, when it succeeded")

    def __str__(self):
        return f"job {self.job_id} attempt {self.attempt} ({'failed' if self.error else 'succeeded'})"


class ReplicaPin(models.Model):
    """Until when a user's reads stay on the primary after a write (memsite/replicas.py)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True)
    until = models.DateTimeField()

    def __str__(self):
        return f"{self.user_id} until {self.until}"
