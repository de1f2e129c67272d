from django.contrib import admin, messages

from dashboard import panels
from dashboard.forms import resolution_choices
from memories.admin import MemoryOwnerFilter
from memsite.errors import DomainError
from quality.models import ConsolidationRun, Inconsistency, QualityAssessment, QualityBoost
from quality.queries import with_memories
from quality.services import Action, dismiss_inconsistency, resolve_inconsistency


class ReadOnlyAdmin(admin.ModelAdmin):
    """History written by the service itself: browse it, never edit it by hand."""

    show_full_result_count = False
    list_per_page = 50

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Inconsistency)
class InconsistencyAdmin(admin.ModelAdmin):
    list_display = ["type", "status", "severity_display", "description", "memory1", "memory2", "detected_at"]
    list_filter = ["status", "type", ("memory1__owner", MemoryOwnerFilter)]
    search_fields = ["description", "memory1__content", "memory2__content"]
    list_select_related = ["resolved_by"]
    show_full_result_count = False
    list_per_page = 50
    actions = ["resolve_apply", "resolve_keep_both", "resolve_archive", "dismiss"]
    readonly_fields = [
        "type",
        "memory1",
        "memory2",
        "severity",
        "description",
        "status",
        "resolution",
        "detected_at",
        "resolved_at",
        "resolved_by",
        "note",
        "reclassified_from",
    ]

    @admin.display(description="severity", ordering="severity")
    def severity_display(self, finding):
        return f"{finding.severity:.2f}"

    def get_queryset(self, request):
        return with_memories(super().get_queryset(request), "memory1", "memory2")

    def has_add_permission(self, request):
        return False

    def change_view(self, request, object_id, form_url="", extra_context=None):
        """The finding's two memories side by side, and one button per resolve action and dismiss
        (posted to the dashboard's review action, which calls the same service)."""
        finding = (
            Inconsistency.objects.select_related("memory1__owner", "memory2__owner")
            .filter(pk=object_id if str(object_id).isdigit() else None)
            .first()
        )
        if finding is not None:
            actions = resolution_choices(finding) if finding.status == Inconsistency.Status.OPEN else []
            extra_context = {**(extra_context or {}), "finding": finding, "review_actions": actions}
        return super().change_view(request, object_id, form_url, extra_context)

    def _apply(self, request, queryset, decide, verb):
        done, skipped = 0, []
        for finding in queryset.select_related("memory1", "memory2"):
            try:
                decide(finding)
                done += 1
            except DomainError as error:
                skipped.append(f"#{finding.pk}: {error.message}")
        self.message_user(request, f"{verb} {done} findings.", messages.SUCCESS)
        if skipped:
            self.message_user(request, "Skipped " + "; ".join(skipped), messages.WARNING)

    @admin.action(description="Apply: the newer memory replaces the older (superseded findings)")
    def resolve_apply(self, request, queryset):
        self._apply(
            request,
            queryset,
            lambda finding: resolve_inconsistency(finding, Action.APPLY, request.user),
            "Applied",
        )

    @admin.action(description="Resolve: keep both memories")
    def resolve_keep_both(self, request, queryset):
        self._apply(
            request,
            queryset,
            lambda finding: resolve_inconsistency(finding, Action.KEEP_BOTH, request.user),
            "Resolved",
        )

    @admin.action(description="Resolve: archive the memory (outdated and low-confidence findings)")
    def resolve_archive(self, request, queryset):
        self._apply(
            request,
            queryset,
            lambda finding: resolve_inconsistency(finding, Action.ARCHIVE, request.user),
            "Resolved",
        )

    @admin.action(description="Dismiss (detection will not raise them again)")
    def dismiss(self, request, queryset):
        self._apply(
            request, queryset, lambda finding: dismiss_inconsistency(finding, request.user), "Dismissed"
        )


@admin.register(QualityBoost)
class QualityBoostAdmin(ReadOnlyAdmin):
    list_display = [
        "created_at",
        "kind",
        "memory",
        "connection_count",
        "quality_before",
        "quality_after",
        "factor",
        "run",
    ]
    list_filter = ["kind", ("memory__owner", MemoryOwnerFilter)]
    search_fields = ["memory__content"]
    list_select_related = ["run"]

    def get_queryset(self, request):
        return with_memories(super().get_queryset(request), "memory")

    def changelist_view(self, request, extra_context=None):
        """The list, with before → after over time for the boosts its filters and search select."""
        response = super().changelist_view(request, extra_context)
        changelist = (getattr(response, "context_data", None) or {}).get("cl")
        if changelist is not None:
            response.context_data.update(panels.boost_list_panels(changelist.queryset))
        return response


@admin.register(QualityAssessment)
class QualityAssessmentAdmin(ReadOnlyAdmin):
    list_display = [
        "evaluated_at",
        "memory",
        "trigger",
        "overall",
        "accuracy",
        "completeness",
        "consistency",
        "timeliness",
        "relevance",
    ]
    list_filter = ["trigger", ("memory__owner", MemoryOwnerFilter)]
    search_fields = ["memory__content"]
    list_select_related = []  # not False: that would join every related table

    def get_queryset(self, request):
        return with_memories(super().get_queryset(request), "memory")


@admin.register(ConsolidationRun)
class ConsolidationRunAdmin(ReadOnlyAdmin):
    list_display = ["id", "started_at", "finished_at", "status", "dry_run", "phase", "started_by"]
    list_filter = ["status", "dry_run"]
    list_select_related = ["started_by"]
    # Phases and parameters are shown above the form, as a table and a definition list.
    fields = ["started_at", "finished_at", "status", "dry_run", "started_by", "phase", "error"]
    readonly_fields = ["started_at"]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        """What the run did (summary, phase table, charts, proposed pairs, parameters), then its fields."""
        run = self.get_object(request, object_id)
        if run is not None:
            extra_context = {**(extra_context or {}), **panels.run_panels(run)}
        return super().change_view(request, object_id, form_url, extra_context)
