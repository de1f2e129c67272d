"""The requests of /api/quality/ and /api/consolidation/ as specs (memsite.api.specs).

Their fields are read by DRF serializer fields, so every message is the one these endpoints have
always given ("'days': Ensure this value is less than or equal to 365.").
"""

from django.conf import settings
from rest_framework import serializers

from memsite.api.specs import Rule, drf, strict
from memsite.errors import Invalid
from quality.services import RECLASSIFIABLE, Action

MAX_EVALUATE_IDS = 1000


class UnitFloatField(serializers.FloatField):
    """A finite number between 0 and 1 (NaN and Infinity are refused)."""

    def __init__(self, **kwargs):
        super().__init__(min_value=0, max_value=1, allow_null=False, **kwargs)

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if value != value:
            raise serializers.ValidationError("must be a number between 0 and 1")
        return value


class JsonBooleanField(serializers.BooleanField):
    """A flag in a JSON body: only true or false. DRF's BooleanField also takes 0, 1, "yes" and
    the like, which makes a destructive flag such as `dry_run: 0` ambiguous."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


def min_not_above_max(params, values):
    if values["min_quality"] > values["max_quality"]:
        raise Invalid("'min_quality': must not exceed max_quality")


def ids_or_all(body, values):
    if ("memory_ids" in values) == values["all"]:
        raise Invalid("Give either 'memory_ids' or \"all\": true")
    if values["query"] and values["all"]:
        raise Invalid(f"'query' scores given 'memory_ids' (at most {MAX_EVALUATE_IDS}), not \"all\"")


DISTRIBUTION = (
    drf("min_quality", UnitFloatField(default=0.0)),
    drf("max_quality", UnitFloatField(default=1.0)),
    Rule(min_not_above_max),
)
LOW = (drf("threshold", UnitFloatField(default=settings.QUALITY_WARNING_THRESHOLD)),)
TRENDS = (drf("days", serializers.IntegerField(min_value=1, max_value=365, default=30)),)
EVALUATE = strict(
    (
        drf(
            "memory_ids",
            serializers.ListField(
                child=serializers.UUIDField(), min_length=1, max_length=MAX_EVALUATE_IDS, required=False
            ),
        ),
        drf("all", JsonBooleanField(default=False, help_text="Evaluate every live memory of the caller.")),
        drf(
            "query",
            serializers.CharField(
                max_length=2000,
                required=False,
                default="",
                allow_blank=True,
                help_text="When given, the answer scores the memories relative to this query (relevance "
                "is the cosine similarity to it) and the stored scores do not change.",
            ),
        ),
        Rule(ids_or_all),
    )
)
RESOLVE = strict(
    (
        drf("action", serializers.ChoiceField(choices=Action.ALL)),
        drf(
            "memory_id",
            serializers.UUIDField(
                required=False,
                help_text="archive: the memory to archive; merge: the memory to keep; "
                "link_*: the edge's source.",
            ),
        ),
        drf(
            "reason",
            serializers.CharField(
                max_length=500,
                required=False,
                default="",
                allow_blank=True,
                help_text="Why: kept as the finding's note (and on the edge for link_* actions).",
            ),
        ),
    )
)
RECLASSIFY = strict((drf("type", serializers.ChoiceField(choices=sorted(RECLASSIFIABLE))),))
RUN = strict(
    (drf("dry_run", JsonBooleanField(default=True, help_text="Only report what would change (default).")),)
)
