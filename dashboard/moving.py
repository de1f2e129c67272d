"""The "Export and import" pages: any signed-in curator exports or imports their own memories,
staff anyone's. They call the same code as GET /export and POST /import."""

from functools import wraps

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, JsonResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from dashboard.forms import ExportForm, ImportForm
from memsite.errors import DomainError
from portability import exports, queries, services
from portability.models import ImportRun

CONTENT_TYPE = "application/x-ndjson"


def signed_in(view):
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        return view(request, *args, **kwargs)

    return wrapper


def _page(request, export_form=None, import_form=None, status=200):
    return render(
        request,
        "dashboard/moving.html",
        {
            "nav": "moving",
            "export_form": export_form or ExportForm(request.user),
            "import_form": import_form or ImportForm(request.user),
            "imports": queries.imports_for(request.user),
        },
        status=status,
    )


@signed_in
def moving(request):
    return _page(request)


@signed_in
def export(request):
    form = ExportForm(request.user, request.GET)
    if not form.is_valid():
        return _page(request, export_form=form, status=400)
    owner = form.cleaned_data["owner"]
    response = StreamingHttpResponse(
        exports.in_chunks(exports.export_lines(owner)), content_type=CONTENT_TYPE
    )
    response["Content-Disposition"] = f'attachment; filename="memsite-{owner.get_username()}.jsonl"'
    return response


@signed_in
@require_POST
def start_import(request):
    form = ImportForm(request.user, request.POST, request.FILES)
    if not form.is_valid():
        return _page(request, import_form=form, status=400)
    data = form.cleaned_data
    try:
        run, _ = services.import_upload(data["owner"], data["file"].chunks(), data["format"], data["dry_run"])
    except DomainError as error:
        form.add_error("file", error.message)
        return _page(request, import_form=form, status=400)
    messages.success(request, "Import queued: a worker starts it shortly. This page follows its progress.")
    return redirect("dashboard:import", pk=run.pk)


def _run_for(request, pk):
    runs = ImportRun.objects.select_related("owner")
    run = (runs if request.user.is_staff else runs.filter(owner=request.user)).filter(pk=pk).first()
    if run is None:
        raise Http404("Import not found")
    return run


@signed_in
def import_detail(request, pk):
    run = _run_for(request, pk)
    return render(
        request,
        "dashboard/import.html",
        {"nav": "moving", "run": run, "summary": run.summary(), "finished": run.finished_at is not None},
    )


@signed_in
def import_progress(request, pk):
    return JsonResponse(_run_for(request, pk).summary())
