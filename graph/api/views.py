from django.db import DatabaseError, InterfaceError, OperationalError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import IsAdminUser
from rest_framework.response import Response
from rest_framework.views import APIView

from graph import age, enrichment, queries, services
from graph.api import serializers as s
from graph.api import specs
from memsite.api.specs import parameters, request_body, validate
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
    values = validate(specs.PAIR, body)
    link = specs.link(values)
    require_graph()
    if link.key not in write_links(owner_id, [link]):
        raise NotFound("One or both memories do not exist")
    stored = queries.described([link])
    return {
        "status": "success",
        "message": f"Association created between {link.source} and {link.target}",
        "relation_type": link.relation_type,
        "strength": link.strength,
        **link.properties,
        **({"ignored_properties": values["ignored"]} if values["ignored"] else {}),
        **({"association": s.edge_data(stored[link.key])} if link.key in stored else {}),
    }


def associate_batch(owner_id, items):
    """Create or update a batch (1-500 items): the answer lists what landed and why the rest failed."""
    for item in items:
        if isinstance(item, dict):
            specs.parse_strength(item.get("strength"))
    links, ignored, failed = {}, {}, []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            failed.append({"index": index, "reason": specs.NOT_AN_OBJECT})
            continue
        try:
            values = validate(specs.BATCH_PAIR, item)
        except Invalid as error:
            failed.append({"index": index, "reason": error.message})
            continue
        links[index], ignored[index] = specs.link(values), values["ignored"]
    require_graph()
    landed = write_links(owner_id, links.values()) if links else set()
    stored = queries.described([link for link in links.values() if link.key in landed])
    succeeded = []
    for index, link in links.items():
        if link.key in landed:
            record = link_record(link, index)
            if ignored[index]:
                record["ignored_properties"] = ignored[index]
            if link.key in stored:
                record["association_id"] = stored[link.key].pk
            succeeded.append(record)
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


def link_record(link, index=None):
    """How a created association is echoed back (with its relation properties)."""
    record = {} if index is None else {"index": index}
    record.update(
        memory1_id=str(link.source),
        memory2_id=str(link.target),
        relation_type=link.relation_type,
        strength=link.strength,
        **link.properties,
    )
    return record


class AssociateView(APIView):
    """POST /associate (single pair or batch) and DELETE /associate."""

    error_statuses = {"POST": (404,), "DELETE": (404,)}
    delete_takes_body = True

    @extend_schema(
        request=specs.ASSOCIATE,
        responses={201: OpenApiTypes.OBJECT, 207: OpenApiTypes.OBJECT},
        summary="Create or update typed associations between two of your memories (or a batch).",
    )
    def post(self, request):
        body = json_body(request, automem_errors=True)
        if not isinstance(body.get("associations"), list):
            return Response(associate_one(request.user.id, body), status=status.HTTP_201_CREATED)
        answer = associate_batch(request.user.id, validate(specs.BATCH, body)["associations"])
        return Response(
            answer, status=status.HTTP_207_MULTI_STATUS if answer["failed"] else status.HTTP_201_CREATED
        )

    @extend_schema(
        request=request_body(specs.DISSOCIATE),
        responses={200: OpenApiTypes.OBJECT},
        summary="Remove the association(s) from memory1 to memory2 (one type, or every type).",
    )
    def delete(self, request):
        body = json_body(request, automem_errors=True)
        values = validate(specs.DISSOCIATE, body)
        source, target, relation_type = values["memory1_id"], values["memory2_id"], values["type"]
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
    @extend_schema(responses={200: s.AssociationResponseSerializer}, summary="One association by its id.")
    def get(self, request, association_id):
        association = queries.get_association_for_user(request.user.id, association_id)
        return Response({"status": "success", "association": s.edge_data(association)})

    @extend_schema(responses={200: OpenApiTypes.OBJECT}, summary="Remove one association by its id.")
    def delete(self, request, association_id):
        require_graph()
        if not services.remove_association(request.user.id, association_id):
            raise NotFound("Association not found")
        return Response({"status": "success", "association_id": association_id})


class PromoteDiscoveredView(APIView):
    @extend_schema(
        request=request_body(specs.PROMOTE),
        responses={200: OpenApiTypes.OBJECT},
        summary="Turn a discovered association into an authored one (type, optional strength).",
    )
    def post(self, request, association_id):
        values = validate(specs.PROMOTE, json_body(request, automem_errors=True))
        relation_type = values["type"]
        require_graph()
        link = services.promote_discovered(
            request.user.id, association_id, relation_type, values["strength"], values["properties"]
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
        parameters=parameters(specs.NEIGHBORS),
        responses={200: s.NeighborsResponseSerializer},
        summary="Memories linked to one memory, hop by hop in both directions.",
    )
    def get(self, request, memory_id):
        params = queries.TraversalParams(**validate(specs.NEIGHBORS, request.query_params))
        result = queries.neighbors(request.user.id, parse_uuid(memory_id), params)
        return Response({"status": "success", **result})


class RelatedView(APIView):
    @extend_schema(
        parameters=parameters(specs.RELATED),
        responses={200: s.RelatedResponseSerializer},
        summary="The memories most strongly related to one memory.",
    )
    def get(self, request, memory_id):
        params = queries.TraversalParams(**validate(specs.RELATED, request.query_params))
        result = queries.related(request.user.id, parse_uuid(memory_id), params)
        return Response({"status": "success", **result})


class SnapshotView(APIView):
    @extend_schema(
        parameters=parameters(specs.SNAPSHOT),
        responses={200: s.SnapshotResponseSerializer},
        summary="Nodes and edges of your graph, for drawing.",
    )
    def get(self, request):
        params = queries.SnapshotParams(**validate(specs.SNAPSHOT, request.query_params))
        return Response({"status": "success", **queries.snapshot(request.user.id, params)})


class StatsView(APIView):
    @extend_schema(responses={200: OpenApiTypes.OBJECT}, summary="Counts of your graph by relation type.")
    def get(self, request):
        return Response({"status": "success", **queries.stats(request.user.id)})


class RelationsView(APIView):
    @extend_schema(responses={200: OpenApiTypes.OBJECT}, summary="The relation types and their properties.")
    def get(self, request):
        return Response({"status": "success", **queries.relation_types()})


class AliasesView(APIView):
    @extend_schema(
        responses={200: OpenApiTypes.OBJECT},
        summary="Your entity aliases: the first names enrichment tags as a full name.",
    )
    def get(self, request):
        return Response({"status": "success", **queries.entity_aliases(request.user.id)})


class EnrichmentStatusView(APIView):
    @extend_schema(
        responses={200: OpenApiTypes.OBJECT}, summary="Pending and failed enrichment of your memories."
    )
    def get(self, request):
        return Response({"status": "success", **enrichment.status_for(request.user)})


class EnrichmentReprocessView(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(
        request=request_body(specs.REPROCESS),
        responses={200: OpenApiTypes.OBJECT},
        summary="Re-run enrichment for the given memory ids (staff).",
    )
    def post(self, request):
        ids = validate(specs.REPROCESS, json_body(request, automem_errors=True))["ids"]
        return Response({"status": "success", **enrichment.reprocess(ids)})
