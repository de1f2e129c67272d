"""Reads for the dashboard pages: aggregates computed in SQL, rows fetched with their relations."""

from datetime import timedelta

from django.core.paginator import Paginator
from django.db.models import Avg, Count, F, Q, Sum, Value
from django.db.models.functions import Floor, Least, TruncDate
from django.utils import timezone

from graph.models import Association
from memories.models import Memory
from quality.models import ConsolidationRun, Inconsistency, QualityAssessment, QualityBoost, QualitySnapshot

HIGH = 0.7
MEDIUM = 0.5
DIMENSIONS = ["accuracy", "completeness", "consistency", "timeliness", "relevance"]
TREND_DAYS = 30


def live_memories():
    return Memory.objects.filter(archived_at__isnull=True)


def quality_summary(queryset):
    """Count, average, tier counts and dimension averages of a memory queryset, in one query."""
    summary = queryset.aggregate(
        total=Count("id"),
        average=Avg("quality_score"),
        high=Count("id", filter=Q(quality_score__gte=HIGH)),
        medium=Count("id", filter=Q(quality_score__gte=MEDIUM, quality_score__lt=HIGH)),
        low=Count("id", filter=Q(quality_score__lt=MEDIUM)),
        boosted=Count("id", filter=Q(quality_boost_applied=True)),
        protected=Count("id", filter=Q(protected=True)),
        **{name: Avg(f"quality_{name}") for name in DIMENSIONS},
    )
    summary["tiers"] = {name: summary[name] for name in ("high", "medium", "low")}
    summary["dimensions"] = {name: summary[name] for name in DIMENSIONS}
    return summary


def quality_histogram(queryset):
    """Memory counts in ten 0.1-wide buckets of quality_score (1.0 falls in the last)."""
    rows = (
        queryset.annotate(bucket=Least(Floor(F("quality_score") * 10), Value(9.0)))
        .values("bucket")
        .annotate(count=Count("id"))
        .order_by()
    )
    buckets = [0] * 10
    for row in rows:
        buckets[int(row["bucket"])] = row["count"]
    return buckets


def quality_trend(owner=None, memories=None, days=TREND_DAYS):
    """Daily average quality from consolidation snapshots and from the day's evaluations."""
    since = timezone.now() - timedelta(days=days)
    snapshots = QualitySnapshot.objects.filter(taken_at__gte=since)
    assessments = QualityAssessment.objects.filter(evaluated_at__gte=since, query="")
    if owner is not None:
        snapshots = snapshots.filter(owner=owner)
    if memories is not None:
        assessments = assessments.filter(memory__in=memories.values("id"))
    snapshot_rows = (
        snapshots.annotate(day=TruncDate("taken_at"))
        .values("day")
        .annotate(memories=Sum("total"), weighted=Sum(F("average_quality") * F("total")))
        .order_by("day")
    )
    assessment_rows = (
        assessments.annotate(day=TruncDate("evaluated_at"))
        .values("day")
        .annotate(average=Avg("overall"), count=Count("id"))
        .order_by("day")
    )
    return {
        "snapshots": [
            {"day": row["day"], "total": row["memories"], "average": row["weighted"] / row["memories"]}
            for row in snapshot_rows
            if row["memories"]
        ],
        "assessments": list(assessment_rows),
    }


def ranked_memories(queryset, limit=10):
    """The best and the worst memories of a queryset by effective quality."""
    base = queryset.select_related("owner").only(
        "id", "content", "memory_type", "tags", "quality_score", "quality_boost_applied", "owner__username"
    )
    return {
        "top": list(base.order_by("-quality_score", "id")[:limit]),
        "bottom": list(base.order_by("quality_score", "id")[:limit]),
    }


def open_inconsistency_counts():
    rows = (
        Inconsistency.objects.filter(status=Inconsistency.Status.OPEN)
        .values("type")
        .annotate(count=Count("id"))
    )
    counts = {row["type"]: row["count"] for row in rows.order_by()}
    return {"total": sum(counts.values()), "by_type": counts}


def overview():
    summary = quality_summary(live_memories())
    totals = Memory.objects.aggregate(
        archived=Count("id", filter=Q(archived_at__isnull=False)),
        owners=Count("owner", distinct=True),
    )
    return {
        "summary": summary,
        "archived": totals["archived"],
        "owners": totals["owners"],
        "associations": Association.objects.count(),
        "inconsistencies": open_inconsistency_counts(),
        "runs": run_rows(limit=5),
    }


def inconsistency_counts():
    """Counts keyed by (type, status), and totals per status."""
    rows = Inconsistency.objects.values("type", "status").annotate(count=Count("id")).order_by()
    counts = {(row["type"], row["status"]): row["count"] for row in rows}
    by_status = dict.fromkeys(Inconsistency.Status.values, 0)
    for (_, status), count in counts.items():
        by_status[status] += count
    return {"cells": counts, "by_status": by_status}


def inconsistency_page(status, kind, page, per_page=10):
    queryset = Inconsistency.objects.select_related("memory1__owner", "memory2__owner", "resolved_by")
    if status:
        queryset = queryset.filter(status=status)
    if kind:
        queryset = queryset.filter(type=kind)
    return Paginator(queryset, per_page).get_page(page)


def boost_overview(page, per_page=20, recent=300):
    boosts = [
        {
            "created_at": boost.created_at,
            "kind": boost.get_kind_display(),
            "quality_before": boost.quality_before,
            "quality_after": boost.quality_after,
            "connection_count": boost.connection_count,
            "label": boost.memory.content[:60],
        }
        for boost in QualityBoost.objects.select_related("memory").only(
            "created_at", "kind", "quality_before", "quality_after", "connection_count", "memory__content"
        )[:recent]
    ]
    kinds = dict(QualityBoost.objects.values_list("kind").annotate(count=Count("id")).order_by())
    boosted = (
        live_memories()
        .filter(quality_boost_applied=True)
        .select_related("owner")
        .order_by("-quality_boost_date", "id")
    )
    return {
        "boosts": boosts,
        "kinds": kinds,
        "page": Paginator(boosted, per_page).get_page(page),
        "recent_rows": QualityBoost.objects.select_related("memory", "run")[:15],
    }


def memory_detail(memory):
    """History and findings of one memory."""
    findings = Inconsistency.objects.filter(Q(memory1=memory) | Q(memory2=memory)).select_related(
        "memory1", "memory2", "resolved_by"
    )
    return {
        "assessments": list(memory.assessments.order_by("-evaluated_at")[:50]),
        "boosts": list(memory.boosts.select_related("run")[:50]),
        "findings": list(findings),
    }


def run_rows(limit=20):
    """Recent consolidation runs with their phases as (name, duration, counts) rows."""
    rows = []
    for run in ConsolidationRun.objects.select_related("started_by")[:limit]:
        phases = []
        for name, values in (run.phases or {}).items():
            values = values if isinstance(values, dict) else {"count": values}
            counts = {key: value for key, value in values.items() if key != "duration_ms"}
            phases.append(
                {
                    "name": name,
                    "label": name.replace("_", " ").capitalize(),
                    "duration_ms": values.get("duration_ms"),
                    "counts": counts,
                }
            )
        seconds = (run.finished_at - run.started_at).total_seconds() if run.finished_at else None
        rows.append({"run": run, "phases": phases, "seconds": seconds})
    return rows
