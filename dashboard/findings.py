"""The dashboard's review queue of findings: the filtered list, one finding's actions, reclassifying
and bulk actions. Every decision goes through the same quality services as the API."""

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from dashboard import queries
from dashboard.filters import FindingFilterSet
from dashboard.forms import (
    DISMISS,
    BulkFindingsForm,
    ReclassifyForm,
    ResolveForm,
    resolution_choices,
)
from dashboard.views import redirect_back, staff_required
from memsite.errors import DomainError, Invalid
from quality import charts
from quality.models import Inconsistency
from quality.services import (
    RECLASSIFIABLE,
    Action,
    dismiss_inconsistency,
    reclassify_inconsistency,
    resolve_inconsistency,
)

PAGE_SIZE = 25


def _reclassify_choices(finding):
    """The types an open pair finding can be turned into."""
    if finding.memory2_id is None or finding.type not in RECLASSIFIABLE:
        return []
    return sorted(RECLASSIFIABLE - {finding.type})


@staff_required
def inconsistencies(request):
    query = request.GET.copy()
    query.setdefault("status", Inconsistency.Status.OPEN)
    filterset = FindingFilterSet(query, queryset=queries.inconsistencies())
    if not filterset.is_valid():
        messages.error(request, "That filter is not valid: showing the open findings.")
        return redirect("dashboard:inconsistencies")
    chosen = filterset.form.cleaned_data
    page = queries.paginate(filterset.qs, request.GET.get("page"), per_page=PAGE_SIZE)
    counts = queries.inconsistency_counts(owner=chosen.get("owner"))
    query.pop("page", None)
    return render(
        request,
        "dashboard/inconsistencies.html",
        {
            "nav": "inconsistencies",
            "filterset": filterset,
            "page": page,
            "rows": [
                {
                    "finding": finding,
                    "actions": resolution_choices(finding),
                    "reclassify": _reclassify_choices(finding),
                }
                for finding in page
            ],
            "query": query,
            "page_query": f"{query.urlencode()}&",
            "status": query.get("status", ""),
            "kind": query.get("type", ""),
            "statuses": Inconsistency.Status.choices,
            "types": Inconsistency.Type.choices,
            "counts": counts,
            "bulk_actions": BulkFindingsForm.ACTIONS,
            "counts_chart": charts.inconsistency_counts(counts["cells"]),
        },
    )


@staff_required
@require_POST
def resolve(request, pk):
    finding = get_object_or_404(Inconsistency.objects.select_related("memory1", "memory2"), pk=pk)
    form = ResolveForm(finding, request.POST)
    if not form.is_valid():
        errors = form.errors.get("action") or form.errors.get("note") or ["Choose an action."]
        messages.error(request, "; ".join(errors))
        return redirect_back(request, "dashboard:inconsistencies")
    action, memory_id = form.resolution()
    note = form.cleaned_data["note"]
    try:
        if action == DISMISS:
            dismiss_inconsistency(finding, request.user, note=note)
        else:
            resolve_inconsistency(finding, action, request.user, memory_id=memory_id, reason=note)
    except DomainError as error:
        messages.error(request, error.message)
    else:
        done = "dismissed" if action == DISMISS else f"resolved ({action.replace('_', ' ')})"
        messages.success(request, f"Finding #{finding.pk} {done}.")
    return redirect_back(request, "dashboard:inconsistencies")


@staff_required
@require_POST
def reclassify(request, pk):
    finding = get_object_or_404(Inconsistency, pk=pk)
    form = ReclassifyForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose a contradiction or a duplicate.")
        return redirect_back(request, "dashboard:inconsistencies")
    try:
        finding = reclassify_inconsistency(finding, form.cleaned_data["type"], request.user)
    except DomainError as error:
        messages.error(request, error.message)
    else:
        messages.success(
            request, f"Finding #{finding.pk} is now a {finding.type} (was a {finding.reclassified_from})."
        )
    return redirect_back(request, "dashboard:inconsistencies")


def _safe_next(request):
    """The page the form came from when it is on this site, for the confirmation's Cancel link."""
    target = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        return target
    return reverse("dashboard:inconsistencies")


def _apply(finding, action, user, note):
    if action == DISMISS:
        dismiss_inconsistency(finding, user, note=note)
    elif action == Action.ARCHIVE:
        if finding.memory2_id is not None:
            raise Invalid("a pair: choose which memory to archive on its card")
        resolve_inconsistency(finding, action, user, reason=note)
    else:
        resolve_inconsistency(finding, action, user, reason=note)


@staff_required
@require_POST
def bulk(request):
    """Confirm, then apply one action to each selected open finding; reports how many changed."""
    form = BulkFindingsForm(request.POST)
    if not form.is_valid():
        errors = [message for messages_ in form.errors.values() for message in messages_]
        messages.error(request, " ".join(errors))
        return redirect_back(request, "dashboard:inconsistencies")
    ids, action, note = (form.cleaned_data[name] for name in ("ids", "action", "note"))
    findings = list(
        queries.inconsistencies().filter(pk__in=ids, status=Inconsistency.Status.OPEN).order_by("pk")
    )
    if not form.cleaned_data["confirmed"]:
        return render(
            request,
            "dashboard/bulk_confirm.html",
            {
                "nav": "inconsistencies",
                "findings": findings,
                "skipped": len(ids) - len(findings),
                "action": action,
                "action_label": BulkFindingsForm.ACTIONS[action],
                "note": note,
                "next": _safe_next(request),
            },
        )
    done, refused = 0, []
    for finding in findings:
        try:
            _apply(finding, action, request.user, note)
        except DomainError as error:
            refused.append(f"#{finding.pk}: {error.message}")
        else:
            done += 1
    label = BulkFindingsForm.ACTIONS[action].lower()
    messages.success(request, f"{label.capitalize()}: {done} of {len(ids)} selected findings.")
    if refused:
        messages.error(request, "Not changed: " + "; ".join(refused))
    return redirect_back(request, "dashboard:inconsistencies")


@staff_required
def supersessions(request):
    """The review queue of proposed supersessions: the older and the newer memory side by side,
    with one-click apply, keep both and dismiss."""
    filterset = FindingFilterSet(
        {**request.GET.dict(), "status": request.GET.get("status", Inconsistency.Status.OPEN)},
        queryset=queries.inconsistencies().filter(type=Inconsistency.Type.SUPERSEDED).exclude(memory2=None),
    )
    if not filterset.is_valid():
        messages.error(request, "That filter is not valid: showing the open proposals.")
        return redirect("dashboard:supersessions")
    page = queries.paginate(filterset.qs, request.GET.get("page"), per_page=PAGE_SIZE)
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "dashboard/supersessions.html",
        {
            "nav": "supersessions",
            "filterset": filterset,
            "status": filterset.form.cleaned_data["status"],
            "statuses": Inconsistency.Status.choices,
            "query": query,
            "page": page,
            "page_query": f"{query.urlencode()}&",
            # A superseded finding names the older memory first.
            "rows": [
                {
                    "finding": finding,
                    "older": finding.memory1,
                    "newer": finding.memory2,
                    "details": finding.details or {},
                }
                for finding in page
            ],
        },
    )
