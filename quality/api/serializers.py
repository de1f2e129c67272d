"""Representations of /api/quality/ answers (requests are read by quality.api.specs)."""

from rest_framework import serializers

from quality.models import Inconsistency, QualityAssessment, QualityBoost


class MemoryBriefSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    content = serializers.CharField()
    quality_score = serializers.FloatField()
    confidence = serializers.FloatField()
    archived = serializers.BooleanField(source="is_archived")
    valid_from = serializers.DateTimeField()
    valid_until = serializers.DateTimeField(allow_null=True)
    superseded_by = serializers.UUIDField(source="superseded_by_id", allow_null=True)


class InconsistencySerializer(serializers.ModelSerializer):
    memory1 = MemoryBriefSerializer()
    memory2 = MemoryBriefSerializer(allow_null=True)
    resolved_by = serializers.CharField(source="resolved_by.username", allow_null=True, default=None)

    class Meta:
        model = Inconsistency
        fields = [
            "id",
            "type",
            "status",
            "severity",
            "description",
            "details",
            "resolution",
            "detected_at",
            "resolved_at",
            "resolved_by",
            "note",
            "reclassified_from",
            "memory1",
            "memory2",
        ]
        read_only_fields = fields


class AssessmentSerializer(serializers.ModelSerializer):
    class Meta:
        model = QualityAssessment
        fields = [
            "accuracy",
            "completeness",
            "consistency",
            "timeliness",
            "relevance",
            "overall",
            "weights",
            "query",
            "trigger",
            "evaluated_at",
        ]
        read_only_fields = fields


class BoostSerializer(serializers.ModelSerializer):
    memory_id = serializers.UUIDField()
    run_id = serializers.IntegerField(allow_null=True)

    class Meta:
        model = QualityBoost
        fields = [
            "id",
            "memory_id",
            "kind",
            "connection_count",
            "quality_before",
            "quality_after",
            "factor",
            "created_at",
            "run_id",
        ]
        read_only_fields = fields


class MemoryQualitySerializer(serializers.Serializer):
    memory_id = serializers.UUIDField()
    content = serializers.CharField()
    quality = serializers.DictField()
    provenance = serializers.DictField()
    boost = serializers.DictField()
    assessments = AssessmentSerializer(many=True)
    boosts = BoostSerializer(many=True)
    inconsistencies = InconsistencySerializer(many=True)


class MemorySummarySerializer(serializers.Serializer):
    id = serializers.UUIDField()
    content_hash = serializers.CharField()
    content = serializers.CharField()
    created_at = serializers.DateTimeField()
    memory_type = serializers.CharField()
    quality_score = serializers.FloatField()
    quality_overall = serializers.FloatField()
    quality_provider = serializers.CharField()
    tier = serializers.CharField()
    tags = serializers.ListField(child=serializers.CharField())
    access_count = serializers.IntegerField()


class BucketSerializer(serializers.Serializer):
    min = serializers.FloatField()
    max = serializers.FloatField()
    count = serializers.IntegerField()


class DistributionSerializer(serializers.Serializer):
    total_memories = serializers.IntegerField()
    high_quality_count = serializers.IntegerField()
    medium_quality_count = serializers.IntegerField()
    low_quality_count = serializers.IntegerField()
    average_score = serializers.FloatField()
    provider_breakdown = serializers.DictField(child=serializers.IntegerField())
    top_memories = MemorySummarySerializer(many=True)
    bottom_memories = MemorySummarySerializer(many=True)
    quality_range = serializers.DictField(child=serializers.FloatField())
    histogram = BucketSerializer(many=True)
    boosted_count = serializers.IntegerField()


class CodedMessageSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()


class IssueSerializer(CodedMessageSerializer):
    count = serializers.IntegerField()


class ReportSerializer(serializers.Serializer):
    generated_at = serializers.DateTimeField()
    stats = serializers.DictField()
    dimension_scores = serializers.DictField(child=serializers.FloatField())
    inconsistency_counts = serializers.DictField(child=serializers.IntegerField())
    top_issues = IssueSerializer(many=True)
    recommendations = CodedMessageSerializer(many=True)


class ImprovementSerializer(serializers.Serializer):
    memory_id = serializers.UUIDField()
    content = serializers.CharField()
    current_score = serializers.FloatField()
    dimensions = serializers.DictField(child=serializers.FloatField())
    suggestions = CodedMessageSerializer(many=True)


class EvaluateResponseSerializer(serializers.Serializer):
    status = serializers.CharField()
    evaluated = serializers.IntegerField(help_text="How many memories' stored scores were renewed.")
    stored = serializers.BooleanField(help_text="False for a query's scores, which are not stored.")
    query = serializers.CharField()
    memories = serializers.ListField(child=serializers.DictField())


class TrendsSerializer(serializers.Serializer):
    days = serializers.IntegerField()
    since = serializers.DateTimeField()
    current = serializers.DictField()
    snapshots = serializers.ListField(child=serializers.DictField())
    daily = serializers.ListField(child=serializers.DictField())
    trends = serializers.DictField()
