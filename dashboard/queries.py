"""Reads for the dashboard pages: aggregates computed in SQL, rows fetched with their relations."""

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.postgres.fields import ArrayField
from django.core.paginator import Paginator
from django.db.models import Avg, Count, Exists, F, Func, OuterRef, Prefetch, Q, Subquery, Sum, UUIDField
from django.db.models.functions import Left, TruncDate
from django.utils import timezone

from graph.models import Association
from memories.models import Memory
from quality.consolidation import PHASE_LABELS, PHASES
from quality.models import (
    ConsolidationRun,
    Inconsistency,
    QualityAssessment,
    QualityBoost,
    QualitySnapshot,
    Trigger,
)
from quality.queries import DIMENSIONS, HIGH, MEDIUM

TREND_DAYS = 30
PHASE_ORDER = {name: index for index, (name, _, _) in enumerate(PHASES)}


LIVE = Q(archived_at__isnull=True)
BUCKETS = 10
RANKED = 10


def live_memories():
    return Memory.objects.filter(LIVE).defer("embedding", "search_vector")


def _bucket(index):
    lower = Q(quality_score__gte=index / BUCKETS)
    return lower & Q(quality_score__lt=(index + 1) / BUCKETS) if index < BUCKETS - 1 else lower


def _summary_aggregates(live):
    """Count, average, tiers, dimension averages and the ten 0.1-wide quality buckets."""
    return {
        "total": Count("id", filter=live),
        "average": Avg("quality_score", filter=live),
        "high": Count("id", filter=live & Q(quality_score__gte=HIGH)),
        "medium": Count("id", filter=live & Q(quality_score__gte=MEDIUM, quality_score__lt=HIGH)),
        "low": Count("id", filter=live & Q(quality_score__lt=MEDIUM)),
        "boosted": Count("id", filter=live & Q(quality_boost_applied=True)),
        "protected": Count("id", filter=live & Q(protected=True)),
        **{name: Avg(f"quality_{name}", filter=live) for name in DIMENSIONS},
        **{f"bucket_{index}": Count("id", filter=live & _bucket(index)) for index in range(BUCKETS)},
    }


def _shape(summary):
    summary["tiers"] = {name: summary[name] for name in ("high", "medium", "low")}
    summary["dimensions"] = {name: summary[name] for name in DIMENSIONS}
    summary["histogram"] = [summary.pop(f"bucket_{index}") for index in range(BUCKETS)]
    return summary


class FirstIds(Func):
    """The first `size` ids of the table in the given order, collected during the same scan as
    the other aggregates (an ORDER BY ... LIMIT would scan the table again)."""

    template = "(%(function)s(%(expressions)s ORDER BY %(ordering)s))[1:%(size)d]"
    function = "array_agg"
    contains_aggregate = True
    output_field = ArrayField(UUIDField())

    def __init__(self, ordering, size=RANKED, **extra):
        super().__init__("id", ordering=ordering, size=size, **extra)


def quality_summary(queryset):
    """Everything the quality page needs about a (live) memory queryset, in one scan."""
    return _shape(
        queryset.aggregate(
            **_summary_aggregates(Q()),
            top_ids=FirstIds("quality_score DESC, id"),
            bottom_ids=FirstIds("quality_score ASC, id"),
        )
    )


def quality_trend(owner=None, memories=None, days=TREND_DAYS, with_snapshots=True):
    """Daily average quality from consolidation snapshots and from the day's evaluations."""
    since = timezone.now() - timedelta(days=days)
    snapshots = QualitySnapshot.objects.filter(taken_at__gte=since)
    if not with_snapshots:
        snapshots = snapshots.none()
    # Consolidation re-evaluates every memory and is already summarised by its snapshots.
    assessments = QualityAssessment.objects.filter(evaluated_at__gte=since, query="").exclude(
        trigger=Trigger.CONSOLIDATION
    )
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


def ranked_memories(summary):
    """The best and the worst memories whose ids quality_summary picked, best and worst first."""
    ids = [*summary["top_ids"], *summary["bottom_ids"]]
    rows = Memory.objects.filter(pk__in=ids).select_related("owner").defer("embedding", "search_vector")
    by_id = {memory.pk: memory for memory in rows}
    return {
        "top": [by_id[pk] for pk in summary["top_ids"] if pk in by_id],
        "bottom": [by_id[pk] for pk in summary["bottom_ids"] if pk in by_id],
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
    totals = Memory.objects.aggregate(
        **_summary_aggregates(LIVE), archived=Count("id", filter=Q(archived_at__isnull=False))
    )
    archived = totals.pop("archived")
    owners = get_user_model().objects.filter(Exists(Memory.objects.filter(owner=OuterRef("pk"))))
    return {
        "summary": _shape(totals),
        "archived": archived,
        "owners": owners.count(),
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


def _with_memories(queryset, *fields):
    """Fetch the memories of each row in one extra query, after sorting and slicing: joining the
    memory table first would make PostgreSQL join every row before it can sort."""
    memories = Memory.objects.select_related("owner").defer("embedding", "search_vector")
    return queryset.prefetch_related(*(Prefetch(field, queryset=memories) for field in fields))


def inconsistencies():
    return _with_memories(Inconsistency.objects.select_related("resolved_by"), "memory1", "memory2")


def paginate(queryset, page, per_page):
    return Paginator(queryset, per_page).get_page(page)


def boost_overview(page, per_page=20, recent=200):
    # The newest boosts are picked in a subquery first, so only those rows are joined to memories.
    newest = QualityBoost.objects.order_by("-created_at").values("pk")[:recent]
    kind_labels = dict(QualityBoost.Kind.choices)
    boosts = [
        {**row, "kind": kind_labels.get(row["kind"], row["kind"])}
        for row in QualityBoost.objects.filter(pk__in=Subquery(newest))
        .order_by("-created_at")
        .values(
            "created_at",
            "kind",
            "quality_before",
            "quality_after",
            "connection_count",
            label=Left("memory__content", 60),
        )
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
        "page": paginate(boosted, page, per_page),
        "recent_rows": _with_memories(QualityBoost.objects.select_related("run"), "memory")[:15],
    }


def memory_detail(memory):
    """History and findings of one memory."""
    findings = _with_memories(
        Inconsistency.objects.filter(Q(memory1=memory) | Q(memory2=memory)).select_related("resolved_by"),
        "memory1",
        "memory2",
    )
    return {
        "assessments": list(memory.assessments.order_by("-evaluated_at")[:50]),
        "boosts": list(memory.boosts.select_related("run")[:50]),
        "findings": list(findings),
    }


def direct_links(memory_id, edges, nodes):
    """The memory's own edges (one hop) as table rows, strongest first."""
    centre = str(memory_id)
    labels = {node["id"]: node["content"] for node in nodes}
    rows = []
    for edge in edges:
        if centre not in (edge["source"], edge["target"]):
            continue
        outgoing = edge["source"] == centre
        other = edge["target"] if outgoing else edge["source"]
        if other in labels:
            rows.append(
                {
                    "relation_type": edge["type"],
                    "direction": "outgoing" if outgoing else "incoming",
                    "memory_id": other,
                    "label": labels[other],
                    "strength": edge["strength"],
                }
            )
    return sorted(rows, key=lambda row: -row["strength"])


def running_run(within=timedelta(hours=1)):
    """The run queued or in progress, if recent (a run whose process died stays 'running')."""
    return (
        ConsolidationRun.objects.filter(
            status__in=[ConsolidationRun.Status.QUEUED, ConsolidationRun.Status.RUNNING],
            started_at__gte=timezone.now() - within,
        )
        .order_by("-started_at")
        .first()
    )


def run_rows(limit=20):
    """Recent consolidation runs with their phases as (name, duration, counts) rows."""
    rows = []
    for run in ConsolidationRun.objects.select_related("started_by")[:limit]:
        phases = []
        for name, values in sorted((run.phases or {}).items(), key=lambda item: PHASE_ORDER.get(item[0], 99)):
            values = values if isinstance(values, dict) else {"count": values}
            counts = {
                key.replace("_", " "): ("yes" if value else "no") if isinstance(value, bool) else value
                for key, value in values.items()
                if key != "duration_ms"
            }
            phases.append(
                {
                    "name": name,
                    "label": PHASE_LABELS.get(name, name.replace("_", " ").capitalize()),
                    "duration_ms": values.get("duration_ms"),
                    "counts": counts,
                }
            )
        seconds = (run.finished_at - run.started_at).total_seconds() if run.finished_at else None
        rows.append({"run": run, "phases": phases, "seconds": seconds})
    return rows
