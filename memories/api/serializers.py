"""Representations of memories and recall results.

Requests are read and documented by the specs in memories.api.specs and memories.api.recall_spec.
"""

from datetime import UTC

from rest_framework import serializers

from graph.api.serializers import RelationSerializer, edge_data


# Plain serializers with every field declared: a ModelSerializer rebuilds its fields from the model
# on every use, which was an eighth of a recall's Python time.
class QualitySerializer(serializers.Serializer):
    overall = serializers.FloatField(source="quality_overall")
    score = serializers.FloatField(source="quality_score")
    accuracy = serializers.FloatField(source="quality_accuracy")
    completeness = serializers.FloatField(source="quality_completeness")
    consistency = serializers.FloatField(source="quality_consistency")
    timeliness = serializers.FloatField(source="quality_timeliness")
    relevance = serializers.FloatField(source="quality_relevance")
    evaluated_at = serializers.DateTimeField(source="quality_evaluated_at", allow_null=True)
    boost_applied = serializers.BooleanField(source="quality_boost_applied")
    boost_date = serializers.DateTimeField(source="quality_boost_date", allow_null=True)
    boost_reason = serializers.CharField(source="quality_boost_reason")
    boost_connection_count = serializers.IntegerField(
        source="quality_boost_connection_count", allow_null=True
    )
    original_quality_before_boost = serializers.FloatField(allow_null=True)
    boost_factor = serializers.FloatField(source="quality_boost_factor", allow_null=True)


class ProvenanceSerializer(serializers.Serializer):
    source_type = serializers.CharField()
    source_id = serializers.CharField()
    is_explicit = serializers.BooleanField()
    confidence = serializers.FloatField()
    corroborating_sources = serializers.ListField(child=serializers.CharField())
    updated_at = serializers.DateTimeField(source="provenance_updated_at")


class MemorySerializer(serializers.Serializer):
    id = serializers.UUIDField()
    content = serializers.CharField()
    tags = serializers.ListField(child=serializers.CharField())
    type = serializers.CharField(source="memory_type")
    importance = serializers.FloatField()
    metadata = serializers.JSONField()
    created_at = serializers.DateTimeField()
    entered_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    valid_from = serializers.DateTimeField()
    valid_until = serializers.DateTimeField(allow_null=True)
    superseded_by = serializers.UUIDField(source="superseded_by_id", allow_null=True)
    last_accessed_at = serializers.DateTimeField(allow_null=True)
    access_count = serializers.IntegerField()
    protected = serializers.BooleanField()
    archived = serializers.BooleanField(source="is_archived")
    archived_at = serializers.DateTimeField(allow_null=True)
    archive_reason = serializers.CharField()
    relevance_score = serializers.FloatField(allow_null=True)
    provenance = ProvenanceSerializer(source="*")
    quality = QualitySerializer(source="*")


MATCH_TYPES = ["vector", "keyword", "relation", "entity", "tag", "recency"]


class ScoreComponentsSerializer(serializers.Serializer):
    vector = serializers.FloatField()
    keyword = serializers.FloatField()
    relation = serializers.FloatField()
    tag = serializers.FloatField()
    importance = serializers.FloatField()
    confidence = serializers.FloatField()
    recency = serializers.FloatField()
    context = serializers.FloatField()
    time = serializers.FloatField()
    statement = serializers.FloatField()
    answer = serializers.FloatField()
    superseded = serializers.FloatField()
    overtaken = serializers.FloatField()


class RecallResultSerializer(serializers.Serializer):
    id = serializers.UUIDField(source="memory.pk")
    memory = MemorySerializer()
    final_score = serializers.FloatField()
    score_components = ScoreComponentsSerializer()
    match_type = serializers.ChoiceField(choices=MATCH_TYPES)
    relations = RelationSerializer(many=True)


# The serializers above document the responses; the data is built by the functions below, field
# for field what the serializers' `to_representation` gives (a test compares them), without DRF's
# per-field machinery, which cost a recall about as much as its scoring statement's Python side.
def _time(value):
    """A datetime as DRF's DateTimeField renders it: ISO 8601 in UTC, `Z` for +00:00."""
    if value is None:
        return None
    text = value.astimezone(UTC).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def _float(value):
    return None if value is None else float(value)


def memory_data(memory):
    return {
        "id": str(memory.pk),
        "content": memory.content,
        "tags": [str(tag) for tag in memory.tags],
        "type": memory.memory_type,
        "importance": float(memory.importance),
        "metadata": memory.metadata,
        "created_at": _time(memory.created_at),
        "entered_at": _time(memory.entered_at),
        "updated_at": _time(memory.updated_at),
        "valid_from": _time(memory.valid_from),
        "valid_until": _time(memory.valid_until),
        "superseded_by": None if memory.superseded_by_id is None else str(memory.superseded_by_id),
        "last_accessed_at": _time(memory.last_accessed_at),
        "access_count": int(memory.access_count),
        "protected": bool(memory.protected),
        "archived": bool(memory.is_archived),
        "archived_at": _time(memory.archived_at),
        "archive_reason": memory.archive_reason,
        "relevance_score": _float(memory.relevance_score),
        "provenance": {
            "source_type": memory.source_type,
            "source_id": memory.source_id,
            "is_explicit": bool(memory.is_explicit),
            "confidence": float(memory.confidence),
            "corroborating_sources": [str(source) for source in memory.corroborating_sources],
            "updated_at": _time(memory.provenance_updated_at),
        },
        "quality": {
            "overall": float(memory.quality_overall),
            "score": float(memory.quality_score),
            "accuracy": float(memory.quality_accuracy),
            "completeness": float(memory.quality_completeness),
            "consistency": float(memory.quality_consistency),
            "timeliness": float(memory.quality_timeliness),
            "relevance": float(memory.quality_relevance),
            "evaluated_at": _time(memory.quality_evaluated_at),
            "boost_applied": bool(memory.quality_boost_applied),
            "boost_date": _time(memory.quality_boost_date),
            "boost_reason": memory.quality_boost_reason,
            "boost_connection_count": memory.quality_boost_connection_count,
            "original_quality_before_boost": _float(memory.original_quality_before_boost),
            "boost_factor": _float(memory.quality_boost_factor),
        },
    }


_COMPONENTS = list(ScoreComponentsSerializer._declared_fields)


def recall_result_data(result):
    return {
        "id": str(result.memory.pk),
        "memory": memory_data(result.memory),
        "final_score": float(result.final_score),
        "score_components": {name: float(result.score_components[name]) for name in _COMPONENTS},
        "match_type": result.match_type,
        "relations": [
            {
                "type": relation["type"],
                "strength": float(relation["strength"]),
                "direction": relation["direction"],
                "memory_id": str(relation["memory_id"]),
                "association": edge_data(relation["association"]),
            }
            for relation in result.relations
        ],
    }


class RecallResponseSerializer(serializers.Serializer):
    status = serializers.CharField()
    query = serializers.CharField()
    results = RecallResultSerializer(many=True)
    count = serializers.IntegerField()
    query_time_ms = serializers.FloatField()
    expansion = serializers.DictField()


class DeleteResponseSerializer(serializers.Serializer):
    status = serializers.CharField()
    memory_id = serializers.UUIDField()


class StoreResponseSerializer(serializers.Serializer):
    status = serializers.CharField()
    memory_id = serializers.UUIDField()
    duplicate = serializers.BooleanField()
    stored_at = serializers.DateTimeField()
    type = serializers.CharField()
    importance = serializers.FloatField()
    tags = serializers.ListField(child=serializers.CharField())
    confidence = serializers.FloatField()
    quality_score = serializers.FloatField()
    memory = MemorySerializer()
    query_time_ms = serializers.FloatField()


class BatchItemSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    memory_id = serializers.UUIDField()
    duplicate = serializers.BooleanField()


class BatchFailureSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    reason = serializers.CharField()


class BatchResponseSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["success", "partial_success"])
    stored_count = serializers.IntegerField()
    duplicate_count = serializers.IntegerField()
    failed_count = serializers.IntegerField()
    succeeded = BatchItemSerializer(many=True)
    failed = BatchFailureSerializer(many=True)
    query_time_ms = serializers.FloatField()


class MemoryResponseSerializer(serializers.Serializer):
    status = serializers.CharField()
    memory_id = serializers.UUIDField()
    memory = MemorySerializer()


class CorroborateResponseSerializer(MemoryResponseSerializer):
    added = serializers.BooleanField()
    confidence = serializers.FloatField()
    corroborating_sources = serializers.ListField(child=serializers.CharField())


class ArchiveResponseSerializer(MemoryResponseSerializer):
    archived = serializers.BooleanField()
    changed = serializers.BooleanField()


class ByTagResponseSerializer(serializers.Serializer):
    status = serializers.CharField()
    tags = serializers.ListField(child=serializers.CharField())
    count = serializers.IntegerField()
    total = serializers.IntegerField()
    limit = serializers.IntegerField()
    offset = serializers.IntegerField()
    memories = MemorySerializer(many=True)
    query_time_ms = serializers.FloatField()


class ListResponseSerializer(serializers.Serializer):
    status = serializers.CharField()
    count = serializers.IntegerField()
    total = serializers.IntegerField()
    limit = serializers.IntegerField()
    offset = serializers.IntegerField()
    memories = MemorySerializer(many=True)
    query_time_ms = serializers.FloatField()


class ReembedResponseSerializer(serializers.Serializer):
    status = serializers.CharField()
    reembedded = serializers.IntegerField()
    seconds = serializers.FloatField()
    provider = serializers.CharField()
