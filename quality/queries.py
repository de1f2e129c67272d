"""Reads of the quality app, always through the owner; aggregates are computed in PostgreSQL.

Tiers follow SPEC section 7 on the effective `quality_score`: high ≥ 0.7, medium 0.5–0.7, low
< 0.5. "Poor" memories are below `MinQualityThreshold` (improvement and cleanup candidates).
"""

from datetime import timedelta

from django.conf import settings
from django.db.models import Avg, Count, Exists, OuterRef, Prefetch, Q
from django.db.models.functions import TruncDate
from django.utils import timezone

from memories.models import LIVE, Memory
from memsite.errors import NotFound
from quality.models import Inconsistency, QualityAssessment, QualityBoost, QualitySnapshot
from quality.rules import DIMENSIONS, bucket_bounds, histogram, histogram_counts, tier, tier_counts

WEAK_DIMENSION = 0.6  # the analyzer's threshold for a weak dimension average (seed 001)
WEAK_MEMORY_DIMENSION = 0.5  # the analyzer's threshold for one memory's weak dimension
MANY_DUPLICATES = 3
TOP = 10
TREND_EPSILON = 0.01

ISSUE_MESSAGES = {
    "low_accuracy": "{n} memories have low accuracy: their sources are weak or uncorroborated.",
    "low_completeness": "{n} memories are short or lack metadata.",
    "low_consistency": "{n} memories have little corroboration or an open contradiction.",
    "low_timeliness": "{n} memories have not been updated or corroborated recently.",
    "low_relevance": "{n} memories have low importance.",
}
SUGGESTIONS = {
    "add_corroboration": "Add a corroborating source from a reliable origin.",
    "add_detail": "Add more detail and metadata.",
    "resolve_contradiction": "Resolve its open contradiction.",
    "find_supporting_evidence": "Find supporting evidence to raise its consistency.",
    "verify_or_archive": "Check that it is still valid, then update or archive it.",
}


def live_memories(owner):
    return Memory.objects.filter(LIVE, owner=owner).defer("embedding", "search_vector")


def memory_summary(memory):
    content = memory.content if len(memory.content) <= 100 else memory.content[:100] + "..."
    return {
        "id": str(memory.pk),
        "content_hash": memory.content_hash,
        "content": content,
        "created_at": memory.created_at,
        "memory_type": memory.memory_type,
        "quality_score": memory.quality_score,
        "quality_overall": memory.quality_overall,
        "quality_provider": quality_provider(memory),
        "tier": tier(memory.quality_score),
        "tags": memory.tags,
        "access_count": memory.access_count,
    }


def quality_provider(memory):
    """What the effective score comes from: the five dimensions, raised by a boost, or nothing yet."""
    if memory.quality_boost_applied:
        return "association_boost"
    return "dimensions" if memory.quality_evaluated_at else "unevaluated"


def _tier_counts():
    return {
        "total": Count("pk"),
        **tier_counts(),
        "average": Avg("quality_score"),
        "boosted": Count("pk", filter=Q(quality_boost_applied=True)),
        "evaluated": Count("pk", filter=Q(quality_evaluated_at__isnull=False)),
    }


def quality_distribution(owner, min_quality=0.0, max_quality=1.0):
    """mcp-memory-service's distribution, plus a ten-bucket histogram and the boosted count."""
    memories = live_memories(owner).filter(quality_score__gte=min_quality, quality_score__lte=max_quality)
    stats = memories.aggregate(
        **_tier_counts(),
        **histogram_counts(),
        plain=Count("pk", filter=Q(quality_evaluated_at__isnull=False, quality_boost_applied=False)),
    )
    buckets = histogram(stats)
    providers = {
        "association_boost": stats["boosted"],
        "dimensions": stats["plain"],
        "unevaluated": stats["total"] - stats["evaluated"],
    }
    return {
        "total_memories": stats["total"],
        "high_quality_count": stats["high"],
        "medium_quality_count": stats["medium"],
        "low_quality_count": stats["low"],
        "average_score": round(stats["average"] or 0.0, 4),
        "provider_breakdown": {name: count for name, count in providers.items() if count},
        "top_memories": [memory_summary(m) for m in memories.order_by("-quality_score", "-created_at")[:TOP]],
        "bottom_memories": [
            memory_summary(m) for m in memories.order_by("quality_score", "created_at")[:TOP]
        ],
        "quality_range": {"min": min_quality, "max": max_quality},
        "histogram": [
            dict(zip(("min", "max"), bucket_bounds(index), strict=True), count=count)
            for index, count in enumerate(buckets)
        ],
        "boosted_count": stats["boosted"],
    }


def open_inconsistency_counts(owner=None):
    """Open findings per type (every type, zero when none), of `owner`'s memories or of all."""
    findings = Inconsistency.objects.filter(status=Inconsistency.Status.OPEN)
    if owner is not None:
        findings = findings.filter(memory1__owner=owner)
    counts = dict.fromkeys(Inconsistency.Type.values, 0)
    counts.update(dict(findings.values_list("type").annotate(n=Count("pk")).order_by()))
    return counts


def with_memories(queryset, *fields):
    """Load each row's memories in one query after sorting and paging: a join would make
    PostgreSQL join every row of the table before it sorts."""
    memories = Memory.objects.select_related("owner").defer("embedding", "search_vector")
    return queryset.prefetch_related(*(Prefetch(field, queryset=memories) for field in fields))


def _recommendations(stats, dimensions, counts):
    """The analyzer's rules of seed 001, with codes and English messages, plus two of memsite's own."""
    rules = []
    total = stats["total_memories"]
    if total and stats["average_quality"] < settings.QUALITY_WARNING_THRESHOLD:
        rules.append(
            (
                "low_average_quality",
                f"Average quality is {stats['average_quality']:.2f}, below "
                f"{settings.QUALITY_WARNING_THRESHOLD}: verify the reliability of memory sources.",
            )
        )
    advice = {
        "accuracy": "add corroborating sources to memories",
        "completeness": "record more detail and metadata",
        "consistency": "run consolidation and resolve conflicting memories",
        "timeliness": "update or archive old memories regularly",
    }
    for name, action in advice.items():
        if total and dimensions[name] < WEAK_DIMENSION:
            rules.append((f"weak_{name}", f"Average {name} is {dimensions[name]:.2f}: {action}."))
    if counts["contradiction"] > 0:
        rules.append(
            (
                "contradictions_found",
                f"{counts['contradiction']} contradictions found: review and resolve them.",
            )
        )
    if counts["duplicate"] > MANY_DUPLICATES:
        rules.append(("duplicates_found", f"{counts['duplicate']} duplicates found: merge them."))
    if stats["low_quality_count"] * 4 > total:
        rules.append(
            ("many_low_quality", "More than 25% of memories are low quality: clean them up or improve them.")
        )
    if counts["outdated"] > 0:
        rules.append(
            ("outdated_found", f"{counts['outdated']} memories are outdated: update or archive them.")
        )
    if counts["superseded"] > 0:
        rules.append(
            (
                "superseded_found",
                f"{counts['superseded']} memories look replaced by newer ones: review the proposed "
                "supersessions (apply, keep both or dismiss).",
            )
        )
    if counts["low_confidence"] > 0:
        rules.append(
            (
                "low_confidence_found",
                f"{counts['low_confidence']} memories have low confidence: corroborate or archive them.",
            )
        )
    return [{"code": code, "message": message} for code, message in rules]


def quality_report(owner):
    """Statistics, dimension averages, open findings by type, top issues and recommendations."""
    memories = live_memories(owner)
    aggregates = memories.aggregate(
        **_tier_counts(),
        poor=Count("pk", filter=Q(quality_score__lt=settings.QUALITY_MIN_THRESHOLD)),
        warning=Count("pk", filter=Q(quality_score__lt=settings.QUALITY_WARNING_THRESHOLD)),
        **{name: Avg(f"quality_{name}") for name in DIMENSIONS},
        **{
            f"low_{name}": Count("pk", filter=Q(**{f"quality_{name}__lt": WEAK_MEMORY_DIMENSION}))
            for name in DIMENSIONS
        },
    )
    stats = {
        "total_memories": aggregates["total"],
        "average_quality": round(aggregates["average"] or 0.0, 4),
        "high_quality_count": aggregates["high"],
        "medium_quality_count": aggregates["medium"],
        "low_quality_count": aggregates["low"],
        "poor_count": aggregates["poor"],
        "warning_count": aggregates["warning"],
        "boosted_count": aggregates["boosted"],
    }
    dimensions = {name: round(aggregates[name] or 0.0, 4) for name in DIMENSIONS}
    counts = open_inconsistency_counts(owner)
    issues = sorted(
        ((code, aggregates[code]) for code in ISSUE_MESSAGES if aggregates[code]),
        key=lambda item: (-item[1], item[0]),
    )[:5]
    return {
        "generated_at": timezone.now(),
        "stats": stats,
        "dimension_scores": dimensions,
        "inconsistency_counts": counts,
        "top_issues": [
            {"code": code, "count": n, "message": ISSUE_MESSAGES[code].format(n=n)} for code, n in issues
        ],
        "recommendations": _recommendations(stats, dimensions, counts),
    }


def poor_memories(owner):
    """Memories below MinQualityThreshold, worst first, flagged when in an open contradiction."""
    contradiction = Inconsistency.objects.filter(
        Q(memory1=OuterRef("pk")) | Q(memory2=OuterRef("pk")),
        type=Inconsistency.Type.CONTRADICTION,
        status=Inconsistency.Status.OPEN,
    )
    return (
        live_memories(owner)
        .filter(quality_score__lt=settings.QUALITY_MIN_THRESHOLD)
        .annotate(contradicted=Exists(contradiction))
        .order_by("quality_score", "created_at")
    )


def suggestions_for(memory):
    codes = []
    if memory.quality_accuracy < WEAK_MEMORY_DIMENSION:
        codes.append("add_corroboration")
    if memory.quality_completeness < WEAK_MEMORY_DIMENSION:
        codes.append("add_detail")
    if getattr(memory, "contradicted", False):
        codes.append("resolve_contradiction")
    if memory.quality_consistency < WEAK_MEMORY_DIMENSION:
        codes.append("find_supporting_evidence")
    if memory.quality_timeliness < WEAK_MEMORY_DIMENSION:
        codes.append("verify_or_archive")
    return [{"code": code, "message": SUGGESTIONS[code]} for code in codes]


def dimensions_of(memory):
    return {name: getattr(memory, f"quality_{name}") for name in DIMENSIONS}


def improvement(memory):
    return {
        "memory_id": str(memory.pk),
        "content": memory_summary(memory)["content"],
        "current_score": memory.quality_score,
        "dimensions": dimensions_of(memory),
        "suggestions": suggestions_for(memory),
    }


def low_quality_memories(owner, threshold):
    return live_memories(owner).filter(quality_score__lt=threshold).order_by("quality_score", "created_at")


def inconsistencies_of(owner):
    return Inconsistency.objects.filter(memory1__owner=owner).select_related("memory1", "memory2")


def get_inconsistency_for_user(owner, pk):
    finding = inconsistencies_of(owner).filter(pk=pk).first()
    if finding is None:
        raise NotFound("Inconsistency not found")
    return finding


def boosts_of(owner):
    return QualityBoost.objects.filter(memory__owner=owner).select_related("memory")


def memory_history(memory, limit=50):
    """One memory's assessments and boosts (newest first) and the findings that name it."""
    findings = Inconsistency.objects.filter(Q(memory1=memory) | Q(memory2=memory))
    findings = with_memories(findings.select_related("resolved_by"), "memory1", "memory2")
    return {
        "assessments": list(memory.assessments.order_by("-evaluated_at", "-pk")[:limit]),
        "boosts": list(memory.boosts.select_related("run").order_by("-created_at", "-pk")[:limit]),
        "findings": list(findings.order_by("-detected_at")),
    }


def memory_quality(memory, history_limit=50):
    """One memory's current dimensions, provenance, boost state and histories."""
    history = memory_history(memory, history_limit)
    return {
        "memory_id": str(memory.pk),
        "content": memory.content,
        "quality": {
            "overall": memory.quality_overall,
            "score": memory.quality_score,
            "tier": tier(memory.quality_score),
            "dimensions": dimensions_of(memory),
            "evaluated_at": memory.quality_evaluated_at,
            "provider": quality_provider(memory),
        },
        "provenance": {
            "source_type": memory.source_type,
            "source_id": memory.source_id,
            "is_explicit": memory.is_explicit,
            "confidence": memory.confidence,
            "corroborating_sources": memory.corroborating_sources,
            "updated_at": memory.provenance_updated_at,
        },
        "boost": {
            "quality_boost_applied": memory.quality_boost_applied,
            "quality_boost_date": memory.quality_boost_date,
            "quality_boost_reason": memory.quality_boost_reason,
            "quality_boost_connection_count": memory.quality_boost_connection_count,
            "original_quality_before_boost": memory.original_quality_before_boost,
            "quality_boost_factor": memory.quality_boost_factor,
        },
        "assessments": history["assessments"],
        "boosts": history["boosts"],
        "inconsistencies": history["findings"],
    }


def _trend(first, last):
    if first is None or last is None:
        return {"trend": "stable", "change": 0.0}
    change = round(last - first, 4)
    if change > TREND_EPSILON:
        return {"trend": "improving", "change": change}
    if change < -TREND_EPSILON:
        return {"trend": "declining", "change": change}
    return {"trend": "stable", "change": change}


def quality_trends(owner, days):
    """Snapshots and daily assessment averages over the last `days` days, with per-dimension trends."""
    since = timezone.now() - timedelta(days=days)
    snapshots = list(
        QualitySnapshot.objects.filter(owner=owner, taken_at__gte=since)
        .order_by("taken_at")
        .values(
            "taken_at",
            "total",
            "average_quality",
            "high_count",
            "medium_count",
            "low_count",
            "boosted_count",
            "open_inconsistencies",
        )
    )
    daily = list(
        QualityAssessment.objects.filter(memory__owner=owner, evaluated_at__gte=since)
        .annotate(date=TruncDate("evaluated_at"))
        .values("date")
        .annotate(
            evaluations=Count("pk"),
            overall=Avg("overall"),
            **{name: Avg(name) for name in DIMENSIONS},
        )
        .order_by("date")
    )
    for day in daily:
        for name in ["overall", *DIMENSIONS]:
            day[name] = round(day[name], 4)
    first, last = (daily[0], daily[-1]) if daily else ({}, {})
    trends = {name: _trend(first.get(name), last.get(name)) for name in ["overall", *DIMENSIONS]}
    if len(snapshots) >= 2:
        trends["average_quality"] = _trend(snapshots[0]["average_quality"], snapshots[-1]["average_quality"])
    current = live_memories(owner).aggregate(average=Avg("quality_score"), total=Count("pk"))
    return {
        "days": days,
        "since": since,
        "current": {"total_memories": current["total"], "average_quality": round(current["average"] or 0, 4)},
        "snapshots": snapshots,
        "daily": daily,
        "trends": trends,
    }


def current_quality(owner, memory_ids):
    """The current quality values of the owner's memories with these ids."""
    memories = Memory.objects.filter(owner=owner, pk__in=memory_ids).defer("embedding", "search_vector")
    return [
        {"id": str(m.pk), "overall": m.quality_overall, "score": m.quality_score, **dimensions_of(m)}
        for m in memories.order_by("pk")
    ]
