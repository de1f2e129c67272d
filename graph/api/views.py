from django.db import DatabaseError, InterfaceError, OperationalError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAdminUser
from rest_framework.response import Response
from rest_framework.views import APIView

from graph import age, enrichment, queries, services
from graph.api import serializers as s
from graph.models import AUTHORABLE_RELATIONS, RELATION_PROPERTIES
from memsite.api.schema import UNIT, integer
from memsite.errors import Failed, Invalid, NotFound, Unavailable
from memsite.validation import json_body, parse_uuid

GRAPH_UNAVAILABLE = "Graph database (Apache AGE) is unavailable"


def require_graph():
    if not age.graph_available():
        raise Unavailable(GRAPH_UNAVAILABLE)


def write_links(owner_id, links):
    """Run the write; a failing graph query is the documented 500, a lost database a 503."""
    try:
        return services.associate_memories(owner_id, links)
    except (OperationalError, InterfaceError):
        raise
    except DatabaseError:
        raise Failed("Failed to create association") from None


def associate_one(owner_id, body):
    """Create or update one association from a decoded body; the answer, or Invalid / NotFound."""
    strength = s.parse_strength(body)
    link = s.parse_link(body, strength, batch=False)
    require_graph()
    if link.key not in write_links(owner_id, [link]):
        raise NotFound("One or both memories do not exist")
    return {
        "status": "success",
        "message": f"Association created between {link.source} and {link.target}",
        "relation_type": link.relation_type,
        "strength": link.strength,
        **link.properties,
    }


def associate_batch(owner_id, items):
    """Create or update a batch (1-500 items): the answer lists what landed and why the rest failed."""
    strengths = s.batch_strengths(items)
    links, failed = {}, []
    for index, (item, strength) in enumerate(zip(items, strengths, strict=True)):
        if not isinstance(item, dict):
            failed.append({"index": index, "reason": s.NOT_AN_OBJECT})
            continue
        try:
            links[index] = s.parse_link(item, strength, batch=True)
        except Invalid as error:
            failed.append({"index": index, "reason": error.message})
    require_graph()
    landed = write_links(owner_id, links.values()) if links else set()
    succeeded = []
    for index, link in links.items():
        if link.key in landed:
            succeeded.append(s.link_record(link, index))
        else:
            failed.append({"index": index, "reason": "One or both memories do not exist"})
    failed.sort(key=lambda entry: entry["index"])
    return {
        "status": "partial_success" if failed else "success",
        "created_count": len(succeeded),
        "failed_count": len(failed),
        "succeeded": succeeded,
        "failed": failed,
        "summary": f"{len(succeeded)}/{len(items)} associations created successfully",
    }


class AssociateView(APIView):
    """POST /associate (single pair or batch) and DELETE /associate."""

    error_statuses = {"POST": (404,), "DELETE": (404,)}

    @extend_schema(
        request={"application/json": s.ASSOCIATE_SCHEMA},
        responses={201: OpenApiTypes.OBJECT, 207: OpenApiTypes.OBJECT},
        summary="Create or update typed associations between two of your memories (or a batch).",
    )
    def post(self, request):
        body = json_body(request, automem_errors=True)
        items = s.batch_items(body)
        if items is None:
            return Response(associate_one(request.user.id, body), status=status.HTTP_201_CREATED)
        answer = associate_batch(request.user.id, items)
        return Response(
            answer, status=status.HTTP_207_MULTI_STATUS if answer["failed"] else status.HTTP_201_CREATED
        )

    @extend_schema(
        request={"application/json": s.DISSOCIATE_SCHEMA},
        responses={200: OpenApiTypes.OBJECT},
        summary="Remove the association(s) from memory1 to memory2 (one type, or every type).",
    )
    def delete(self, request):
        body = json_body(request, automem_errors=True)
        source, target = s.parse_ids(body, batch=False)
        relation_type = s.parse_type(body, choices=RELATION_PROPERTIES, default=None)
        require_graph()
        removed = services.remove_associations(request.user.id, source, target, relation_type)
        if not removed:
            raise NotFound("Association not found")
        return Response(
            {
                "status": "success",
                "message": f"Association removed between {source} and {target}",
                "removed_count": removed,
            }
        )


class AssociationDetailView(APIView):
    @extend_schema(responses={200: OpenApiTypes.OBJECT}, summary="Remove one association by its id.")
    def delete(self, request, association_id):
        require_graph()
        if not services.remove_association(request.user.id, association_id):
            raise NotFound("Association not found")
        return Response({"status": "success", "association_id": association_id})


def types_parameter(name):
    """Relation types, repeated or comma-separated, case-insensitive."""
    return OpenApiParameter(
        name,
        {"type": "array", "items": {"type": "string", "enum": sorted(RELATION_PROPERTIES)}},
        explode=False,
        description="Relation types, comma-separated.",
    )


class PromoteDiscoveredView(APIView):
    @extend_schema(
        request=OpenApiTypes.OBJECT,
        responses={200: OpenApiTypes.OBJECT},
        summary="Turn a discovered association into an authored one (type, optional strength).",
    )
    def post(self, request, association_id):
        body = json_body(request, automem_errors=True)
        relation_type = s.parse_type(body)
        strength = None if body.get("strength") is None else s.parse_strength(body)
        properties = {
            name: s.parse_property(name, body[name])
            for name in AUTHORABLE_RELATIONS[relation_type]
            if body.get(name) is not None
        }
        require_graph()
        link = services.promote_discovered(
            request.user.id, association_id, relation_type, strength, properties
        )
        if link is None:
            raise NotFound("Discovered association not found")
        return Response(
            {
                "status": "success",
                "message": f"Association promoted to {relation_type}",
                "relation_type": relation_type,
                "strength": link.strength,
                **link.properties,
            }
        )


class NeighborsView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("depth", integer(1, 3, 1), description="Hops, both directions."),
            types_parameter("types"),
            OpenApiParameter("min_strength", {**UNIT, "default": 0}),
        ],
        responses={200: OpenApiTypes.OBJECT},
        summary="Memories linked to one memory, hop by hop in both directions.",
    )
    def get(self, request, memory_id):
        params = queries.TraversalParams.from_query(request.query_params, depth_name="depth")
        result = queries.neighbors(request.user.id, parse_uuid(memory_id), params)
        return Response({"status": "success", **result})


class RelatedView(APIView):
    @extend_schema(
        parameters=[
            types_parameter("relationship_types"),
            OpenApiParameter("max_depth", integer(1, 3, 1)),
            OpenApiParameter("limit", integer(1, 100, 5)),
        ],
        responses={200: OpenApiTypes.OBJECT},
        summary="The memories most strongly related to one memory.",
    )
    def get(self, request, memory_id):
        params = queries.TraversalParams.from_query(
            request.query_params, depth_name="max_depth", types_name="relationship_types", with_limit=True
        )
        result = queries.related(request.user.id, parse_uuid(memory_id), params)
        return Response({"status": "success", **result})


class SnapshotView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("limit", integer(1, 5000, 500), description="Nodes."),
            types_parameter("types"),
            OpenApiParameter("min_importance", {**UNIT, "default": 0}),
        ],
        responses={200: OpenApiTypes.OBJECT},
        summary="Nodes and edges of your graph, for drawing.",
    )
    def get(self, request):
        params = queries.SnapshotParams.from_query(request.query_params)
        return Response({"status": "success", **queries.snapshot(request.user.id, params)})


class StatsView(APIView):
    @extend_schema(responses={200: OpenApiTypes.OBJECT}, summary="Counts of your graph by relation type.")
    def get(self, request):
        return Response({"status": "success", **queries.stats(request.user.id)})


class RelationsView(APIView):
    @extend_schema(responses={200: OpenApiTypes.OBJECT}, summary="The relation types and their properties.")
    def get(self, request):
        return Response({"status": "success", **queries.relation_types()})


class EnrichmentStatusView(APIView):
    @extend_schema(
        responses={200: OpenApiTypes.OBJECT}, summary="Pending and failed enrichment of your memories."
    )
    def get(self, request):
        return Response({"status": "success", **enrichment.status_for(request.user)})


class EnrichmentReprocessView(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(
        request=OpenApiTypes.OBJECT,
        responses={200: OpenApiTypes.OBJECT},
        summary="Re-run enrichment for the given memory ids (staff).",
    )
    def post(self, request):
        body = json_body(request, automem_errors=True)
        raw_ids = body.get("ids", body.get("memory_ids"))
        if not isinstance(raw_ids, list) or not raw_ids or len(raw_ids) > s.MAX_BATCH:
            raise Invalid(f"'ids' must be a list of 1 to {s.MAX_BATCH} memory ids")
        ids = [parse_uuid(value) for value in raw_ids]
        return Response({"status": "success", **enrichment.reprocess(ids)})
