"""Reads for the dashboard pages: aggregates computed in SQL, rows fetched with their relations."""

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.postgres.fields import ArrayField
from django.core.paginator import Paginator
from django.db.models import Avg, Count, Exists, F, Func, OuterRef, Q, Subquery, Sum, UUIDField
from django.db.models.functions import Left, TruncDate, TruncWeek
from django.utils import timezone

from graph.models import Association
from memories.models import LIVE, Memory
from quality.consolidation import PHASE_LABELS, PHASES
from quality.consolidation.discovery import boosts_resting_on_discovery, count_boosts_resting_on_discovery
from quality.models import (
    ConsolidationRun,
    Inconsistency,
    QualityAssessment,
    QualityBoost,
    QualitySnapshot,
    Trigger,
)
from quality.queries import open_inconsistency_counts, with_memories
from quality.rules import DIMENSIONS, TIERS, histogram, histogram_counts, tier_counts

TREND_DAYS = 30
TREND_RANGES = {"7": 7, "30": 30, "90": 90, "all": None}
SUPERSEDED_WEEKS = 26


def trend_days(request):
    """The trend charts' range from `?days=` (7, 30, 90 or all; anything else: 30), as (key, days)."""
    key = request.GET.get("days", str(TREND_DAYS))
    return (key, TREND_RANGES[key]) if key in TREND_RANGES else (str(TREND_DAYS), TREND_DAYS)


def superseded_per_week(weeks=SUPERSEDED_WEEKS):
    """Facts superseded per week (INVALIDATED_BY links made), by origin, over the last `weeks`."""
    rows = (
        Association.objects.filter(
            relation_type="INVALIDATED_BY", created_at__gte=timezone.now() - timedelta(weeks=weeks)
        )
        .annotate(week=TruncWeek("created_at"))
        .values("week", "origin")
        .annotate(count=Count("id"))
        .order_by("week", "origin")
    )
    return [{"week": row["week"].date(), "origin": row["origin"], "count": row["count"]} for row in rows]


PHASE_ORDER = {name: index for index, (name, _, _) in enumerate(PHASES)}


RANKED = 10


def live_memories():
    return Memory.objects.filter(LIVE).defer("embedding", "search_vector")


def _summary_aggregates(live):
    """Count, average, tiers, dimension averages and the ten 0.1-wide quality buckets."""
    return {
        "total": Count("id", filter=live),
        "average": Avg("quality_score", filter=live),
        **tier_counts(live),
        "boosted": Count("id", filter=live & Q(quality_boost_applied=True)),
        "protected": Count("id", filter=live & Q(protected=True)),
        **{name: Avg(f"quality_{name}", filter=live) for name in DIMENSIONS},
        **histogram_counts(live),
    }


def _shape(summary):
    summary["tiers"] = {name: summary[name] for name in TIERS}
    summary["dimensions"] = {name: summary[name] for name in DIMENSIONS}
    summary["histogram"] = histogram(summary)
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


def list_summary(queryset):
    """Count, tiers, dimension averages and histogram buckets of any memory queryset, in one scan."""
    return _shape(queryset.aggregate(**_summary_aggregates(Q())))


def browsable_memories():
    """Every memory, archived ones included, newest first, with its owner."""
    memories = Memory.objects.select_related("owner").defer("embedding", "search_vector")
    return memories.order_by("-created_at", "-id")


def quality_trend(owner=None, memories=None, days=TREND_DAYS, with_snapshots=True):
    """Daily average quality from consolidation snapshots and from the day's evaluations, over the
    last `days` days (None: all time)."""
    since = None if days is None else timezone.now() - timedelta(days=days)
    snapshots = (
        QualitySnapshot.objects.all()
        if since is None
        else QualitySnapshot.objects.filter(taken_at__gte=since)
    )
    if not with_snapshots:
        snapshots = snapshots.none()
    # Consolidation re-evaluates every memory and is already summarised by its snapshots.
    assessments = QualityAssessment.objects.filter(query="").exclude(trigger=Trigger.CONSOLIDATION)
    if since is not None:
        assessments = assessments.filter(evaluated_at__gte=since)
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


def overview():
    totals = Memory.objects.aggregate(**_summary_aggregates(LIVE), archived=Count("id", filter=~LIVE))
    archived = totals.pop("archived")
    open_counts = open_inconsistency_counts()
    owners = get_user_model().objects.filter(Exists(Memory.objects.filter(owner=OuterRef("pk"))))
    return {
        "summary": _shape(totals),
        "archived": archived,
        "owners": owners.count(),
        "associations": Association.objects.count(),
        "inconsistencies": {"total": sum(open_counts.values()), "by_type": open_counts},
        "runs": run_rows(limit=5),
    }


def inconsistency_counts(owner=None):
    """Counts keyed by (type, status), and totals per status, of one owner's findings or all."""
    findings = Inconsistency.objects.all()
    if owner is not None:
        findings = findings.filter(memory1__owner=owner)
    rows = findings.values("type", "status").annotate(count=Count("id")).order_by()
    counts = {(row["type"], row["status"]): row["count"] for row in rows}
    by_status = dict.fromkeys(Inconsistency.Status.values, 0)
    for (_, status), count in counts.items():
        by_status[status] += count
    return {"cells": counts, "by_status": by_status}


def inconsistencies():
    return with_memories(Inconsistency.objects.select_related("resolved_by"), "memory1", "memory2")


class IdsFirstPaginator(Paginator):
    """Sorts and slices the rows' ids alone, then loads the page's rows in the same statement.

    Where no index gives the order (quality at 100,000 memories), sorting the wide rows (content,
    embedding, the joined owner) took 280 ms; their ids alone sort in 150.
    """

    def _get_page(self, object_list, number, paginator):
        rows = self.object_list.filter(pk__in=Subquery(object_list.values("pk")))
        return super()._get_page(rows, number, paginator)


def paginate(queryset, page, per_page):
    return IdsFirstPaginator(queryset, per_page).get_page(page)


def boost_points(boosts, recent=200):
    """The newest `recent` boost events of a QualityBoost queryset as rows for the boost chart."""
    # The newest boosts are picked in a subquery first, so only those rows are joined to memories.
    newest = boosts.order_by("-created_at").values("pk")[:recent]
    kind_labels = dict(QualityBoost.Kind.choices)
    return [
        {**row, "kind": kind_labels.get(row["kind"], row["kind"])}
        for row in QualityBoost.objects.filter(pk__in=Subquery(newest))
        .order_by("-created_at")
        .values(
            "created_at",
            "kind",
            "quality_before",
            "quality_after",
            "connection_count",
            "run_id",
            "memory_id",
            label=Left("memory__content", 60),
        )
    ]


def boost_overview(page, owner=None, per_page=20, recent=200):
    """The boost history, of every owner's memories or of `owner`'s only."""
    events = QualityBoost.objects.all()
    boosted = live_memories().filter(quality_boost_applied=True)
    if owner is not None:
        events, boosted = events.filter(memory__owner=owner), boosted.filter(owner=owner)
    kinds = dict(events.values_list("kind").annotate(count=Count("id")).order_by())
    page = paginate(boosted.select_related("owner").order_by("-quality_boost_date", "id"), page, per_page)
    resting = boosts_resting_on_discovery(memory.pk for memory in page)
    for memory in page:
        memory.rests_on_discovery = memory.pk in resting
    if owner is None:
        resting_count = count_boosts_resting_on_discovery()
    else:
        resting_count = len(boosts_resting_on_discovery(boosted.values_list("pk", flat=True)))
    return {
        "boosts": boost_points(events, recent),
        "kinds": kinds,
        "resting_on_discovery": resting_count,
        "page": page,
        "recent_rows": with_memories(events.select_related("run"), "memory")[:15],
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
        seconds = (run.finished_at - run.started_at).total_seconds() if run.finished_at else None
        rows.append({"run": run, "phases": run_phases(run), "seconds": seconds})
    return rows


def run_phases(run):
    """One run's phases in execution order, each with its label, duration, counts and the timings
    of its steps (keys ending in `_ms`, kept apart from the counts)."""
    phases = []
    for name, values in sorted((run.phases or {}).items(), key=lambda item: PHASE_ORDER.get(item[0], 99)):
        values = values if isinstance(values, dict) else {"count": values}
        shown = {
            key: value
            for key, value in values.items()
            if key != "duration_ms" and not isinstance(value, list)
        }
        counts = {
            key.replace("_", " "): ("yes" if value else "no") if isinstance(value, bool) else value
            for key, value in shown.items()
            if not key.endswith("_ms")
        }
        timings = {
            key.removesuffix("_ms").replace("_", " "): value
            for key, value in shown.items()
            if key.endswith("_ms")
        }
        phases.append(
            {
                "name": name,
                "label": PHASE_LABELS.get(name, name.replace("_", " ").capitalize()),
                "duration_ms": values.get("duration_ms"),
                "counts": counts,
                "timings": timings,
            }
        )
    return phases


def run_parameters(run):
    """The settings a run used as (name, value) rows, nested settings as `outer.inner`."""
    rows = []

    def walk(prefix, value):
        if isinstance(value, dict):
            for key in sorted(value):
                walk(f"{prefix}.{key}" if prefix else str(key), value[key])
        else:
            rows.append((prefix, ", ".join(map(str, value)) if isinstance(value, list) else value))

    walk("", run.parameters or {})
    return rows


def proposed_pairs(run):
    """The pairs a dry run's discovery would have linked, each with both memories (None when one
    was deleted since) and the signals that proposed it."""
    pairs = ((run.phases or {}).get("discover") or {}).get("pairs") or []
    ids = {pair.get(end) for pair in pairs for end in ("source", "target")} - {None}
    memories = (
        Memory.objects.filter(pk__in=ids)
        .select_related("owner")
        .only("id", "content", "quality_score", "archived_at", "owner__username")
    )
    by_id = {str(memory.pk): memory for memory in memories}
    return [
        {
            "source": by_id.get(pair.get("source")),
            "target": by_id.get(pair.get("target")),
            "source_id": pair.get("source"),
            "target_id": pair.get("target"),
            "kind": str(pair.get("kind", "")).replace("+", ", ").replace("_", " "),
            "confidence": pair.get("confidence"),
            "similarity": pair.get("similarity"),
        }
        for pair in pairs
    ]
