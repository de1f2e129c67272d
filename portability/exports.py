"""An owner's data as memsite's JSON Lines (portability/records.py), streamed: rows are read with
server-side cursors in chunks, one line is built at a time, nothing holds the whole set."""

import json

from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Q
from django.utils import timezone

from graph.models import Association
from memories.models import LIVE, Memory
from portability.records import FORMAT, VERSION
from quality.models import Inconsistency, QualityAssessment, QualityBoost

CHUNK = 2000
# Characters of lines a streamed response sends at a time: under the ASGI server every piece of a
# response crosses from Django's thread to the event loop on its own, a line each cost more than
# building the line.
STREAM_CHUNK = 64 * 1024
ALL_KINDS = ("memory", "association", "finding", "boost", "assessment")


def _line(record):
    return json.dumps(record, cls=DjangoJSONEncoder, ensure_ascii=False, separators=(",", ":")) + "\n"


def _time(value):
    return None if value is None else value.isoformat()


def exported_memories(owner, tags=None, since=None, include_archived=True):
    memories = Memory.objects.filter(owner=owner)
    if not include_archived:
        memories = memories.filter(LIVE)
    if tags:
        memories = memories.filter(tags__overlap=tags)
    if since:
        memories = memories.filter(created_at__gte=since)
    return memories


def memory_record(memory):
    return {
        "kind": "memory",
        "id": str(memory.pk),
        "content": memory.content,
        "content_hash": memory.content_hash,
        "tags": memory.tags,
        "type": memory.memory_type,
        "importance": memory.importance,
        "metadata": memory.metadata,
        "source_type": memory.source_type,
        "source_id": memory.source_id,
        "is_explicit": memory.is_explicit,
        "corroborating_sources": memory.corroborating_sources,
        "confidence": memory.confidence,
        "quality_score": memory.quality_score,
        "created_at": _time(memory.created_at),
        "updated_at": _time(memory.updated_at),
        "entered_at": _time(memory.entered_at),
        "valid_from": _time(memory.valid_from),
        "valid_until": _time(memory.valid_until),
        "superseded_by": None if memory.superseded_by_id is None else str(memory.superseded_by_id),
        "last_accessed_at": _time(memory.last_accessed_at),
        "access_count": memory.access_count,
        "protected": memory.protected,
        "archived_at": _time(memory.archived_at),
        "archive_reason": memory.archive_reason,
    }


MEMORY_FIELDS = [
    "id", "content", "content_hash", "tags", "memory_type", "importance", "metadata", "source_type",
    "source_id", "is_explicit", "corroborating_sources", "confidence", "quality_score", "created_at",
    "updated_at", "entered_at", "valid_from", "valid_until", "superseded_by_id", "last_accessed_at",
    "access_count", "protected", "archived_at", "archive_reason",
]  # fmt: skip


def association_record(association):
    return {
        "kind": "association",
        "source": str(association.source_id),
        "target": str(association.target_id),
        "type": association.relation_type,
        "strength": association.strength,
        "origin": association.origin,
        "properties": association.properties,
        "created_at": _time(association.created_at),
    }


def finding_record(finding):
    return {
        "kind": "finding",
        "type": finding.type,
        "memory1": str(finding.memory1_id),
        "memory2": None if finding.memory2_id is None else str(finding.memory2_id),
        "severity": finding.severity,
        "description": finding.description,
        "details": finding.details,
        "status": finding.status,
        "resolution": finding.resolution,
        "detected_at": _time(finding.detected_at),
        "resolved_at": _time(finding.resolved_at),
    }


def boost_record(boost):
    return {
        "kind": "boost",
        "id": str(boost.pk),
        "memory": str(boost.memory_id),
        "boost_kind": boost.kind,
        "connection_count": boost.connection_count,
        "quality_before": boost.quality_before,
        "quality_after": boost.quality_after,
        "factor": boost.factor,
        "created_at": _time(boost.created_at),
    }


def assessment_record(assessment):
    return {
        "kind": "assessment",
        "id": str(assessment.pk),
        "memory": str(assessment.memory_id),
        "accuracy": assessment.accuracy,
        "completeness": assessment.completeness,
        "consistency": assessment.consistency,
        "timeliness": assessment.timeliness,
        "relevance": assessment.relevance,
        "overall": assessment.overall,
        "weights": assessment.weights,
        "query": assessment.query,
        "trigger": assessment.trigger,
        "evaluated_at": _time(assessment.evaluated_at),
    }


def export_lines(owner, tags=None, since=None, include_archived=True, kinds=ALL_KINDS):
    """The header, then the owner's records kind by kind (memories first, so an import meets every
    memory before the records that name it); associations, findings, boosts and assessments only
    between exported memories."""
    memories = exported_memories(owner, tags, since, include_archived)
    ids = memories.values("pk")
    yield _line(
        {
            "kind": "header",
            "format": FORMAT,
            "version": VERSION,
            "owner": owner.get_username(),
            "exported_at": timezone.now().isoformat(),
            "kinds": list(kinds),
        }
    )
    sources = []
    if "memory" in kinds:
        rows = memories.order_by("created_at", "sequence").only(*MEMORY_FIELDS)
        sources.append((rows, memory_record))
    if "association" in kinds:
        rows = Association.objects.filter(source__in=ids, target__in=ids).order_by("pk")
        sources.append((rows, association_record))
    if "finding" in kinds:
        within = Q(memory2__isnull=True) | Q(memory2__in=ids)
        rows = Inconsistency.objects.filter(within, memory1__in=ids).order_by("pk")
        sources.append((rows, finding_record))
    if "boost" in kinds:
        sources.append((QualityBoost.objects.filter(memory__in=ids).order_by("pk"), boost_record))
    if "assessment" in kinds:
        sources.append((QualityAssessment.objects.filter(memory__in=ids).order_by("pk"), assessment_record))
    for rows, record in sources:
        for row in rows.iterator(chunk_size=CHUNK):
            yield _line(record(row))


def in_chunks(lines, size=STREAM_CHUNK):
    """The lines joined into pieces of about `size` characters, for a streamed response."""
    pieces, length = [], 0
    for line in lines:
        pieces.append(line)
        length += len(line)
        if length >= size:
            yield "".join(pieces)
            pieces, length = [], 0
    if pieces:
        yield "".join(pieces)
