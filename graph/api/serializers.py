"""The representation of an edge: every read of one (neighbors, related, snapshot, recall's
relations, the MCP tools) answers it, built here and documented in the OpenAPI document from here."""

from rest_framework import serializers

from graph.models import RELATION_PROPERTIES, Origin


class EdgeSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The association's id (GET/DELETE /association/<id>).")
    source = serializers.UUIDField(source="source_id", help_text="The memory the edge leaves.")
    target = serializers.UUIDField(source="target_id", help_text="The memory the edge points to.")
    type = serializers.ChoiceField(source="relation_type", choices=sorted(RELATION_PROPERTIES))
    strength = serializers.FloatField()
    origin = serializers.ChoiceField(choices=Origin.values, help_text="Who made it.")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    properties = serializers.DictField(help_text="The relation properties its type takes (reason, …).")


class RelationSerializer(serializers.Serializer):
    """An edge as one memory sees it: the other end, the direction, and the edge itself."""

    type = serializers.CharField()
    strength = serializers.FloatField()
    direction = serializers.ChoiceField(choices=["outgoing", "incoming"])
    memory_id = serializers.UUIDField()
    association = EdgeSerializer()


# Built once: building a serializer deep-copies its fields; `to_representation` keeps no state.
_EDGE = EdgeSerializer()


def edge_data(association):
    """The representation of one stored association."""
    return _EDGE.to_representation(association)


class NodeSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    content = serializers.CharField()
    tags = serializers.ListField(child=serializers.CharField())
    type = serializers.CharField()
    importance = serializers.FloatField()
    quality_score = serializers.FloatField()
    created_at = serializers.DateTimeField()
    archived_at = serializers.DateTimeField(allow_null=True)


class NeighborNodeSerializer(NodeSerializer):
    depth = serializers.IntegerField()


class NeighborsResponseSerializer(serializers.Serializer):
    status = serializers.CharField()
    memory_id = serializers.UUIDField()
    depth = serializers.IntegerField()
    count = serializers.IntegerField()
    nodes = NeighborNodeSerializer(many=True)
    edges = EdgeSerializer(many=True)


class RelatedItemSerializer(serializers.Serializer):
    memory = NodeSerializer()
    relation_type = serializers.CharField()
    strength = serializers.FloatField()
    depth = serializers.IntegerField()
    via = serializers.UUIDField(help_text="The memory the edge leaves from (the start, or a hop).")
    association = EdgeSerializer()


class RelatedResponseSerializer(serializers.Serializer):
    status = serializers.CharField()
    memory_id = serializers.UUIDField()
    count = serializers.IntegerField()
    related = RelatedItemSerializer(many=True)


class SnapshotResponseSerializer(serializers.Serializer):
    status = serializers.CharField()
    node_count = serializers.IntegerField()
    edge_count = serializers.IntegerField()
    nodes = NodeSerializer(many=True)
    edges = EdgeSerializer(many=True)


class AssociationResponseSerializer(serializers.Serializer):
    status = serializers.CharField()
    association = EdgeSerializer()
