"""Server-rendered dashboard pages for staff. Reads come from dashboard.queries, figures from
quality.charts, and every action calls the same service as the API."""

from functools import wraps

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from dashboard import explorer, panels, queries
from dashboard.filters import BoostFilterSet, MemoryBrowserFilterSet, MemoryFilterSet
from dashboard.forms import RecallExplorerForm, StartConsolidationForm
from memories import services as memory_services
from memories.api.recall_spec import recall_options
from memories.models import Memory, MemoryType
from memsite import jobs
from memsite.errors import DomainError
from quality import charts
from quality.consolidation import (
    PHASE_LABELS,
    PHASES,
    ConsolidationBusy,
    queue_consolidation,
    recover_abandoned_runs,
    reset_boost,
)
from quality.models import ConsolidationRun, Inconsistency

BROWSER_PAGE_SIZE = 50
TREND_RANGE_LABELS = [("7", "7 days"), ("30", "30 days"), ("90", "90 days"), ("all", "all")]


def staff_required(view):
    """Anonymous users go to the login page; signed-in users who are not staff get 403."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not request.user.is_staff:
            return render(request, "dashboard/forbidden.html", status=403)
        return view(request, *args, **kwargs)

    return wrapper


@staff_required
def overview(request):
    data = queries.overview()
    range_key, days = queries.trend_days(request)
    trend = queries.quality_trend(days=days)
    return render(
        request,
        "dashboard/overview.html",
        {
            **data,
            "nav": "overview",
            "inconsistency_types": Inconsistency.Type.choices,
            "tier_chart": charts.tier_bars(data["summary"]["tiers"], height=280),
            "trend_chart": charts.quality_trend(trend["snapshots"], trend["assessments"], days=days),
            "trend_range": range_key,
            "trend_ranges": TREND_RANGE_LABELS,
            "superseded_chart": charts.superseded_per_week(
                queries.superseded_per_week(), weeks=queries.SUPERSEDED_WEEKS
            ),
        },
    )


@staff_required
def quality(request):
    filterset = MemoryFilterSet(request.GET or None, queryset=queries.live_memories())
    valid = filterset.is_bound and filterset.is_valid()
    memories = filterset.qs if valid else queries.live_memories()
    chosen = filterset.form.cleaned_data if valid else {}
    filtered = any(chosen.values())
    # Snapshots summarise whole accounts: they cannot follow a type or tag filter.
    by_content = bool(chosen.get("memory_type") or chosen.get("tag"))
    summary = queries.quality_summary(memories)
    range_key, days = queries.trend_days(request)
    trend = queries.quality_trend(
        owner=chosen.get("owner"),
        memories=memories if filtered else None,
        days=days,
        with_snapshots=not by_content,
    )
    return render(
        request,
        "dashboard/quality.html",
        {
            "nav": "quality",
            "filterset": filterset,
            "filtered": filtered,
            "snapshots_hidden": by_content,
            "summary": summary,
            "ranked": queries.ranked_memories(summary),
            "histogram_chart": charts.quality_histogram(summary["histogram"]),
            "tier_chart": charts.tier_bars(summary["tiers"], height=280),
            "dimension_chart": charts.dimension_bars(summary["dimensions"]),
            "trend_chart": charts.quality_trend(trend["snapshots"], trend["assessments"], days=days),
            "trend_range": range_key,
            "trend_ranges": TREND_RANGE_LABELS,
        },
    )


def redirect_back(request, default):
    """Redirect to the page the form came from, when it is on this site."""
    target = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        return redirect(target)
    return redirect(default)


@staff_required
def boosts(request):
    filterset = BoostFilterSet(request.GET or None)
    owner = filterset.form.cleaned_data.get("owner") if filterset.is_bound and filterset.is_valid() else None
    data = queries.boost_overview(request.GET.get("page"), owner=owner)
    return render(
        request,
        "dashboard/boosts.html",
        {
            **data,
            "nav": "boosts",
            "filterset": filterset,
            "owner": owner,
            "page_query": f"owner={owner.pk}&" if owner else "",
            "boost_chart": charts.boost_timeline(data["boosts"]),
        },
    )


@staff_required
def memory_detail(request, memory_id):
    memory = get_object_or_404(Memory.objects.select_related("owner"), pk=memory_id)
    return render(
        request, "dashboard/memory.html", {**panels.memory_panels(memory), "nav": "", "memory": memory}
    )


@staff_required
def memories(request):
    filterset = MemoryBrowserFilterSet(request.GET or None, queryset=queries.browsable_memories())
    valid = filterset.is_bound and filterset.is_valid()
    rows = filterset.qs if valid else queries.browsable_memories()
    query = request.GET.copy()
    query.pop("page", None)
    chosen = (filterset.form.cleaned_data.get("sort") if valid else None) or ["-created"]
    sort_by, sort_desc = chosen[0].lstrip("-"), chosen[0].startswith("-")
    return render(
        request,
        "dashboard/memories.html",
        {
            "nav": "memories",
            "sort_by": sort_by,
            "sort_desc": sort_desc,
            # A header sorts by its column, descending first; clicking it again flips the order.
            "created_sort": "created" if (sort_by, sort_desc) == ("created", True) else "-created",
            "quality_sort": "quality" if (sort_by, sort_desc) == ("quality", True) else "-quality",
            "filterset": filterset,
            "filtered": valid and any(filterset.form.cleaned_data.values()),
            "page": queries.paginate(rows, request.GET.get("page"), per_page=BROWSER_PAGE_SIZE),
            "page_query": f"{query.urlencode()}&" if query else "",
        },
    )


@staff_required
def recall_explorer(request):
    form = RecallExplorerForm(request.GET or None)
    context = {"nav": "recall", "form": form, "memory_types": MemoryType.choices}
    if form.is_valid():
        owner = form.cleaned_data["owner"]
        params = request.GET.copy()
        for name in form.fields:  # the explorer's own fields; the rest is the recall's
            params.pop(name, None)
        try:
            options = recall_options(params)
        except DomainError as error:
            context["error"] = error.message
        else:
            context["found"] = explorer.explore(owner, options)
            if form.cleaned_data["why_not"]:
                context["why_not"] = explorer.why_not(owner, options, form.cleaned_data["why_not"])
    return render(request, "dashboard/recall.html", context)


@staff_required
@require_POST
def reset_memory_boost(request, memory_id):
    memory = get_object_or_404(Memory, pk=memory_id)
    if reset_boost(memory):
        messages.success(request, f"Boost removed: quality score back to {memory.quality_score:.2f}.")
    else:
        messages.info(request, "This memory had no boost to reset.")
    return redirect_back(request, "dashboard:boosts")


@staff_required
@require_POST
def archive_memory(request, memory_id):
    memory = get_object_or_404(Memory, pk=memory_id)
    reason = f"archived by {request.user.get_username()}"
    try:
        _, changed = memory_services.archive_memory(memory, reason=reason)
    except DomainError as error:
        messages.error(request, error.message)
        return redirect("dashboard:memory", memory_id=memory.pk)
    messages.success(request, "Memory archived." if changed else "The memory was already archived.")
    return redirect("dashboard:memory", memory_id=memory.pk)


@staff_required
@require_POST
def restore_memory(request, memory_id):
    memory = get_object_or_404(Memory, pk=memory_id)
    try:
        _, changed = memory_services.restore_memory(memory)
    except DomainError as error:
        messages.error(request, error.message)
        return redirect("dashboard:memory", memory_id=memory.pk)
    messages.success(request, "Memory restored." if changed else "The memory was not archived.")
    return redirect("dashboard:memory", memory_id=memory.pk)


@staff_required
def consolidation(request):
    recover_abandoned_runs()
    rows = queries.run_rows()
    latest = next((row for row in rows if row["phases"] and row["run"].status != "running"), None)
    phase_chart = panels.phase_duration_chart(latest["phases"]) if latest else ""
    return render(
        request,
        "dashboard/consolidation.html",
        {
            "nav": "consolidation",
            "rows": rows,
            "latest": latest,
            "phase_chart": phase_chart,
            "running": queries.running_run(),
        },
    )


@staff_required
@require_POST
def start_consolidation(request):
    form = StartConsolidationForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose a dry run or a real run.")
        return redirect("dashboard:consolidation")
    try:
        queue_consolidation(dry_run=form.dry_run, started_by=request.user)
    except ConsolidationBusy as busy:
        messages.error(request, f"{busy}.")
        return redirect("dashboard:consolidation")
    kind = "Dry run" if form.dry_run else "Consolidation run"
    messages.success(request, f"{kind} queued: a worker starts it shortly. This page follows its progress.")
    return redirect("dashboard:consolidation")


@staff_required
def run_progress(request, pk):
    run = get_object_or_404(ConsolidationRun, pk=pk)
    return JsonResponse(
        {
            "id": run.pk,
            "status": run.status,
            "dry_run": run.dry_run,
            "phase": PHASE_LABELS.get(run.phase, run.phase),
            "phases_done": len(run.phases or {}),
            "phases_total": len(PHASES),
            "phases": run.phases,
        }
    )


@staff_required
def jobs_page(request):
    chosen = request.GET.get("range", "7")
    if chosen not in jobs.RANGES:
        chosen = "7"
    return render(
        request,
        "dashboard/jobs.html",
        {
            "nav": "jobs",
            **jobs.queue_overview(),
            **jobs.job_history(days=jobs.RANGES[chosen]),
            "range": chosen,
            "ranges": [("1", "24 hours"), ("7", "7 days"), ("30", "30 days"), ("all", "all")],
        },
    )


@staff_required
@require_POST
def retry_job(request, job_id):
    if jobs.retry_failed_job(job_id):
        messages.success(request, f"Job #{job_id} is back in the queue.")
    else:
        messages.error(request, f"Job #{job_id} is not a failed job.")
    return redirect("dashboard:jobs")
