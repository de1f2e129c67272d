from django.contrib import admin

from quality.models import ConsolidationRun, Inconsistency, QualityAssessment, QualityBoost


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
    list_filter = ["status", "type"]
    search_fields = ["description", "memory1__content", "memory2__content"]
    list_select_related = ["memory1", "memory2"]
    show_full_result_count = False
    list_per_page = 50
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
    ]

    @admin.display(description="severity", ordering="severity")
    def severity_display(self, finding):
        return f"{finding.severity:.2f}"

    def has_add_permission(self, request):
        return False


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
    list_filter = ["kind"]
    search_fields = ["memory__content"]
    list_select_related = ["memory", "run"]


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
    list_filter = ["trigger"]
    search_fields = ["memory__content"]
    list_select_related = ["memory"]


@admin.register(ConsolidationRun)
class ConsolidationRunAdmin(ReadOnlyAdmin):
    list_display = ["id", "started_at", "finished_at", "status", "dry_run", "phase", "started_by"]
    list_filter = ["status", "dry_run"]
    list_select_related = ["started_by"]
