"""Representations of memories and recall results.

Requests are read and documented by the specs in memories.api.specs and memories.api.recall_spec.
"""

from rest_framework import serializers


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


class RelationSerializer(serializers.Serializer):
    type = serializers.CharField()
    strength = serializers.FloatField()
    direction = serializers.ChoiceField(choices=["outgoing", "incoming"])
    memory_id = serializers.UUIDField()


class RecallResultSerializer(serializers.Serializer):
    id = serializers.UUIDField(source="memory.pk")
    memory = MemorySerializer()
    final_score = serializers.FloatField()
    score_components = ScoreComponentsSerializer()
    match_type = serializers.ChoiceField(choices=MATCH_TYPES)
    relations = RelationSerializer(many=True)


# Memories and recall results are turned into data by one serializer each, built once per process:
# building a serializer deep-copies every field it declares (about sixty for a recall result),
# which cost a recall as much as serializing its ten results. Sharing them between threads is
# safe: `to_representation` keeps no state.
_MEMORY = MemorySerializer()
_RECALL_RESULT = RecallResultSerializer()


def memory_data(memory):
    return _MEMORY.to_representation(memory)


def recall_result_data(result):
    return _RECALL_RESULT.to_representation(result)


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


class ReembedResponseSerializer(serializers.Serializer):
    status = serializers.CharField()
    reembedded = serializers.IntegerField()
    seconds = serializers.FloatField()
    provider = serializers.CharField()
