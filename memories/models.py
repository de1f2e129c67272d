import json
import uuid

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import connection, models
from django.db.models import F, Func, Q, TextField, Value
from django.db.models.functions import Length
from django.db.models.lookups import LessThanOrEqual, Regex
from django.utils import timezone
from pgvector.django import HnswIndex, VectorField

from memories.answers import HOLDS, QUESTION
from memories.changes import STATES_CHANGE_SQL
from memories.embeddings import vector_literal

UNIT_FIELDS = [
    "importance",
    "confidence",
    "quality_overall",
    "quality_score",
    "quality_accuracy",
    "quality_completeness",
    "quality_consistency",
    "quality_timeliness",
    "quality_relevance",
    "original_quality_before_boost",
]


# Chinese and Japanese text has no spaces between words: each of these characters becomes its own
# full-text token, in the stored search vector and in recall's queries alike.
CJK_CHARACTERS = "([\\u3040-\\u30ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff])"
SEARCH_CONFIG = "english"
SEQUENCE_NAME = "memories_memory_sequence_seq"
# Live (not archived) memories: the condition of the partial indexes that searches of them use.
LIVE = Q(archived_at__isnull=True)
# The most new entries (kB) a GIN index keeps aside before it merges them into its tree: every
# search of the index reads all of them, so recall's term matches and enrichment's tag probes slow
# down as stores pile up (PostgreSQL's default is 4 MB). 64 kB is the least PostgreSQL accepts.
GIN_PENDING_LIST_KB = 64


def searchable_text(expression):
    """`expression` with every CJK character set apart by spaces (SQL regexp_replace)."""
    return Func(
        expression,
        Value(CJK_CHARACTERS),
        Value(" \\1 "),
        Value("g"),
        function="regexp_replace",
        output_field=TextField(),
    )


class NextSequenceValue(Func):
    """nextval() of the memories' insertion sequence (migration 0005), the column's default."""

    function = "nextval"
    output_field = models.BigIntegerField()

    def __init__(self):
        super().__init__(Value(SEQUENCE_NAME))

    def deconstruct(self):
        return "memories.models.NextSequenceValue", (), {}


class MemoryType(models.TextChoices):
    MEMORY = "Memory"
    DECISION = "Decision"
    PATTERN = "Pattern"
    PREFERENCE = "Preference"
    STYLE = "Style"
    HABIT = "Habit"
    INSIGHT = "Insight"
    CONTEXT = "Context"


class SourceType(models.TextChoices):
    BOOTSTRAPPED = "bootstrapped"
    USER_INPUT = "user_input"
    AGENT = "agent"
    TOOL_OUTPUT = "tool_output"


ADD_TAGS_SQL = """
UPDATE memories_memory m
SET tags = ARRAY(
    SELECT t FROM unnest(m.tags || v.tags) WITH ORDINALITY AS u(t, n) GROUP BY t ORDER BY min(n)
)
FROM jsonb_to_recordset(%s::jsonb) AS v(id uuid, tags varchar[])
WHERE m.id = v.id AND NOT m.tags @> v.tags
"""


class MemoryManager(models.Manager):
    def add_tags(self, tags_by_id):
        """Append tags to memories in one UPDATE ({id: [tag, ...]}), keeping order, never twice."""
        rows = [{"id": str(pk), "tags": tags} for pk, tags in tags_by_id.items() if tags]
        if rows:
            with connection.cursor() as cursor:
                cursor.execute(ADD_TAGS_SQL, [json.dumps(rows)])


class EmbeddingField(VectorField):
    """pgvector's field, whose values go to the database as `vector_literal` writes them: the same
    float32 values, in a third of the Python time of pgvector's own text."""

    def get_prep_value(self, value):
        return None if value is None else vector_literal(value)


class Memory(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memories")
    content = models.TextField()
    content_hash = models.CharField(max_length=64)
    embedding = EmbeddingField(dimensions=settings.EMBEDDING_DIMENSIONS)
    search_vector = models.GeneratedField(
        expression=SearchVector(searchable_text(F("content")), config=SEARCH_CONFIG),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    # Whether the content only asks, and whether it holds a time or a number, the answers to "when"
    # and "how many" (recall's `statement` and `answer`): worked out once per content, not by
    # every recall.
    is_question = models.GeneratedField(
        expression=Regex(F("content"), QUESTION), output_field=models.BooleanField(), db_persist=True
    )
    holds_time = models.GeneratedField(
        expression=Regex(F("content"), HOLDS["time"]), output_field=models.BooleanField(), db_persist=True
    )
    holds_number = models.GeneratedField(
        expression=Regex(F("content"), HOLDS["number"]), output_field=models.BooleanField(), db_persist=True
    )
    # Whether the content says a value changed ("moved", "no longer", "现在"): a newer memory that
    # says so overtakes an older one on the same subject in recall (`overtaken`).
    states_change = models.GeneratedField(
        expression=Regex(F("content"), STATES_CHANGE_SQL), output_field=models.BooleanField(), db_persist=True
    )
    tags = ArrayField(models.CharField(max_length=100), default=list, blank=True)
    memory_type = models.CharField(max_length=20, choices=MemoryType.choices, default=MemoryType.MEMORY)
    importance = models.FloatField(default=0.5)
    metadata = models.JSONField(default=dict, blank=True)

    source_type = models.CharField(max_length=40, default=SourceType.USER_INPUT)
    source_id = models.CharField(max_length=200, blank=True, default="")
    is_explicit = models.BooleanField(default=False)
    confidence = models.FloatField(default=0.7)
    corroborating_sources = ArrayField(models.CharField(max_length=200), default=list, blank=True)

    # created_at is when the remembered event happened (a client may set it, e.g. on import);
    # entered_at is when the row entered this store, which retention counts inactivity from.
    created_at = models.DateTimeField(default=timezone.now)
    entered_at = models.DateTimeField(default=timezone.now)
    # Insertion order, monotonic: (created_at, sequence) orders memories that share a timestamp.
    sequence = models.BigIntegerField(db_default=NextSequenceValue(), editable=False)
    updated_at = models.DateTimeField(default=timezone.now)
    # Validity: the fact holds from valid_from (by default its created_at) until the memory that
    # replaced it became valid. valid_until and superseded_by are derived by the database from the
    # INVALIDATED_BY associations (graph migration 0007, `memsite_sync_supersession`): A is
    # superseded by B exactly when A -[INVALIDATED_BY]-> B exists; no code writes them.
    valid_from = models.DateTimeField(default=timezone.now)
    valid_until = models.DateTimeField(null=True, blank=True, editable=False)
    superseded_by = models.ForeignKey(
        "self", null=True, blank=True, editable=False, on_delete=models.SET_NULL, related_name="replaced"
    )
    # The confidence of the strongest replacement of this memory that waits for review (an open
    # `superseded` finding naming it as the older memory; 0 without one), kept by the database
    # (quality migration 0009) like the validity: recall ranks such a memory lower.
    replacement_proposed = models.FloatField(db_default=0.0, editable=False)
    provenance_updated_at = models.DateTimeField(default=timezone.now)
    last_accessed_at = models.DateTimeField(null=True, blank=True)
    access_count = models.PositiveIntegerField(default=0)

    quality_overall = models.FloatField(default=0)
    quality_score = models.FloatField(default=0)
    quality_accuracy = models.FloatField(default=0)
    quality_completeness = models.FloatField(default=0)
    quality_consistency = models.FloatField(default=0)
    quality_timeliness = models.FloatField(default=0)
    quality_relevance = models.FloatField(default=0)
    quality_evaluated_at = models.DateTimeField(null=True, blank=True)
    low_quality_since = models.DateTimeField(null=True, blank=True)

    quality_boost_applied = models.BooleanField(default=False)
    quality_boost_date = models.DateTimeField(null=True, blank=True)
    quality_boost_reason = models.CharField(max_length=60, blank=True, default="")
    quality_boost_connection_count = models.PositiveIntegerField(null=True, blank=True)
    original_quality_before_boost = models.FloatField(null=True, blank=True)
    quality_boost_factor = models.FloatField(null=True, blank=True)

    relevance_score = models.FloatField(null=True, blank=True)
    relevance_calculated_at = models.DateTimeField(null=True, blank=True)

    protected = models.BooleanField(default=False)
    archived_at = models.DateTimeField(null=True, blank=True)
    archive_reason = models.CharField(max_length=200, blank=True, default="")

    objects = MemoryManager()

    class Meta:
        ordering = ["-created_at", "-sequence"]
        verbose_name_plural = "memories"
        # No index on quality_score, and fillfactor 25 (migrations 0003, 0004): consolidation rewrites it
        # for every row, which then stays a HOT update that skips the indexes. Searches that skip
        # archived memories (recall, discovery, detection, enrichment) use the partial indexes on live
        # memories (migration 0010): they never read an archived row. Archiving a memory is not a HOT
        # update, but the new row version only enters the full btree and GIN indexes, not the HNSW.
        # One HNSW index: a second one, per memory type, made batch stores a fifth slower (0016).
        indexes = [
            HnswIndex(
                name="memory_live_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
                condition=LIVE,
            ),
            # Owner first: recall's per-owner term and tag matches intersect inside the index. Every
            # GIN index keeps a small pending list (migration 0013), which each search reads whole.
            GinIndex(
                fields=["owner", "search_vector"],
                name="memory_live_owner_search_gin",
                condition=LIVE,
                gin_pending_list_limit=GIN_PENDING_LIST_KB,
            ),
            GinIndex(
                fields=["owner", "tags"],
                name="memory_live_owner_tags_gin",
                condition=LIVE,
                gin_pending_list_limit=GIN_PENDING_LIST_KB,
            ),
            models.Index(fields=["owner", "memory_type"], name="memory_live_owner_type", condition=LIVE),
            # The boosts page lists and counts the live boosted memories, newest boost first.
            models.Index(
                fields=["-quality_boost_date", "id"],
                name="memory_live_boosted",
                condition=LIVE & Q(quality_boost_applied=True),
            ),
            # Every memory, archived ones included: the staff browser's and the admin's searches.
            GinIndex(
                fields=["owner", "search_vector"],
                name="memory_owner_search_gin",
                gin_pending_list_limit=GIN_PENDING_LIST_KB,
            ),
            GinIndex(
                fields=["owner", "tags"],
                name="memory_owner_tags_gin",
                gin_pending_list_limit=GIN_PENDING_LIST_KB,
            ),
            models.Index(fields=["owner", "content_hash"], name="memory_owner_hash"),
            # One owner's findings, boosts and assessments join their memories from this index alone.
            models.Index(fields=["owner", "id"], name="memory_owner_id"),
            models.Index(fields=["owner", "-created_at", "-sequence"], name="memory_owner_created"),
            # The memory browser and the admin list every owner's memories newest first.
            models.Index(fields=["-created_at", "-id"], name="memory_created"),
            models.Index(fields=["owner", "memory_type"], name="memory_owner_type"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(**{f"{name}__gte": 0, f"{name}__lte": 1}) | Q(**{f"{name}__isnull": True}),
                name=f"memory_{name}_unit",
            )
            for name in UNIT_FIELDS
        ] + [
            models.CheckConstraint(
                condition=Q(content__regex=r"\S") & Q(LessThanOrEqual(Length("content"), 2000)),
                name="memory_content_length",
            ),
            models.CheckConstraint(
                condition=Q(valid_until__isnull=True) | Q(valid_until__gte=F("valid_from")),
                name="memory_valid_until_after_from",
            ),
        ]

    def __str__(self):
        return self.content[:80]

    @property
    def is_archived(self):
        return self.archived_at is not None

    @property
    def is_superseded(self):
        """Replaced by a memory that is valid now (one valid only from a future date replaces it then)."""
        return self.valid_until is not None and self.valid_until <= timezone.now()


class PendingAccess(models.Model):
    """A recall's access to a memory, waiting to be added to its counters by a worker.

    Recall only reads (it may run on a replica); it appends these rows on the primary and the
    `apply_accesses` job folds them into `access_count` and `last_accessed_at` in batches
    (memories/services.py). No foreign key: a memory deleted meanwhile is simply skipped.
    """

    memory_id = models.UUIDField()
    accessed_at = models.DateTimeField()

    def __str__(self):
        return f"{self.memory_id} at {self.accessed_at}"
