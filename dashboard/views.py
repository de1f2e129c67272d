"""Server-rendered dashboard pages for staff. Reads come from dashboard.queries, figures from
quality.charts, and every action calls the same service as the API."""

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, render

from dashboard import queries
from dashboard.filters import MemoryFilterSet
from memories.models import Memory
from quality import charts
from quality.models import Inconsistency


def staff_required(view):
    """Anonymous users go to the login page; signed-in users who are not staff get 403."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not request.user.is_staff:
            raise PermissionDenied("The dashboard is for staff only")
        return view(request, *args, **kwargs)

    return wrapper


@staff_required
def overview(request):
    data = queries.overview()
    trend = queries.quality_trend()
    return render(
        request,
        "dashboard/overview.html",
        {
            **data,
            "nav": "overview",
            "inconsistency_types": Inconsistency.Type.choices,
            "tier_chart": charts.tier_bars(data["summary"]["tiers"]),
            "trend_chart": charts.quality_trend(trend["snapshots"], trend["assessments"]),
        },
    )


@staff_required
def quality(request):
    filterset = MemoryFilterSet(request.GET or None, queryset=queries.live_memories())
    memories = filterset.qs if filterset.is_bound and filterset.is_valid() else queries.live_memories()
    summary = queries.quality_summary(memories)
    owner = filterset.form.cleaned_data.get("owner") if filterset.is_bound and filterset.is_valid() else None
    filtered = filterset.is_bound and any(filterset.form.cleaned_data.values())
    trend = queries.quality_trend(owner=owner, memories=memories if filtered else None)
    return render(
        request,
        "dashboard/quality.html",
        {
            "nav": "quality",
            "filterset": filterset,
            "filtered": filtered,
            "summary": summary,
            "ranked": queries.ranked_memories(memories),
            "histogram_chart": charts.quality_histogram(queries.quality_histogram(memories)),
            "tier_chart": charts.tier_bars(summary["tiers"]),
            "dimension_chart": charts.dimension_bars(summary["dimensions"]),
            "trend_chart": charts.quality_trend(trend["snapshots"], trend["assessments"]),
        },
    )


@staff_required
def inconsistencies(request):
    status = request.GET.get("status", Inconsistency.Status.OPEN)
    status = status if status in Inconsistency.Status.values or status == "" else Inconsistency.Status.OPEN
    kind = request.GET.get("type", "")
    kind = kind if kind in Inconsistency.Type.values else ""
    counts = queries.inconsistency_counts()
    return render(
        request,
        "dashboard/inconsistencies.html",
        {
            "nav": "inconsistencies",
            "page": queries.inconsistency_page(status, kind, request.GET.get("page")),
            "status": status,
            "kind": kind,
            "statuses": Inconsistency.Status.choices,
            "types": Inconsistency.Type.choices,
            "counts": counts,
            "counts_chart": charts.inconsistency_counts(counts["cells"]),
        },
    )


@staff_required
def boosts(request):
    data = queries.boost_overview(request.GET.get("page"))
    return render(
        request,
        "dashboard/boosts.html",
        {**data, "nav": "boosts", "boost_chart": charts.boost_timeline(data["boosts"])},
    )


@staff_required
def memory_detail(request, memory_id):
    memory = get_object_or_404(Memory.objects.select_related("owner"), pk=memory_id)
    data = queries.memory_detail(memory)
    dimensions = {name: getattr(memory, f"quality_{name}") for name in queries.DIMENSIONS}
    history = [
        {"evaluated_at": row.evaluated_at, "overall": row.overall, "trigger": row.trigger}
        for row in reversed(data["assessments"])
    ]
    return render(
        request,
        "dashboard/memory.html",
        {
            **data,
            "nav": "",
            "memory": memory,
            "dimensions": dimensions,
            "dimension_chart": charts.memory_dimensions(dimensions),
            "history_chart": charts.assessment_history(history) if history else "",
        },
    )


@staff_required
def consolidation(request):
    rows = queries.run_rows()
    latest = next((row for row in rows if row["phases"]), None)
    phase_chart = ""
    if latest:
        durations = {phase["name"]: {"duration_ms": phase["duration_ms"] or 0} for phase in latest["phases"]}
        phase_chart = charts.run_phases(durations, div_id="chart-run-phases")
    return render(
        request,
        "dashboard/consolidation.html",
        {"nav": "consolidation", "rows": rows, "latest": latest, "phase_chart": phase_chart},
    )
