from django import forms
from django.contrib import admin, messages
from django.contrib.postgres.forms import SimpleArrayField
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from dashboard import panels
from graph.models import Association
from memories import services
from memories.api import specs
from memories.models import LIVE, Memory
from memories.queries import memory_owners
from memsite.errors import DomainError
from quality import metrics, rules
from quality.consolidation import reset_boosts
from quality.models import Trigger

EDITABLE = ["content", "tags", "memory_type", "importance", "metadata"]


class QualityTierFilter(admin.SimpleListFilter):
    title = "quality tier"
    parameter_name = "tier"

    def lookups(self, request, model_admin):
        return list(rules.TIER_LABELS.items())

    def queryset(self, request, queryset):
        if self.value() not in rules.TIERS:
            return queryset
        return queryset.filter(rules.tier_filter(self.value()))


class MemoryOwnerFilter(admin.RelatedFieldListFilter):
    """Owners to choose from: the users who own a memory, one index probe per user (Django's
    RelatedOnlyFieldListFilter would collect the distinct owners of every row of the list)."""

    def field_choices(self, field, request, model_admin):
        return [(user.pk, str(user)) for user in memory_owners()]


class ArchivedFilter(admin.SimpleListFilter):
    title = "archived"
    parameter_name = "archived"

    def lookups(self, request, model_admin):
        return [("no", "Live"), ("yes", "Archived")]

    def queryset(self, request, queryset):
        if self.value() == "no":
            return queryset.filter(LIVE)
        if self.value() == "yes":
            return queryset.filter(~LIVE)
        return queryset


class ValidityFilter(admin.SimpleListFilter):
    title = "validity"
    parameter_name = "validity"

    def lookups(self, request, model_admin):
        return [("current", "Current"), ("superseded", "Superseded")]

    def queryset(self, request, queryset):
        if self.value() == "current":
            return queryset.filter(superseded_by__isnull=True)
        if self.value() == "superseded":
            return queryset.filter(superseded_by__isnull=False)
        return queryset


class MemoryAdminForm(forms.ModelForm):
    """Validates edits with the API's own rules, so the admin can store nothing the API would refuse."""

    tags = SimpleArrayField(forms.CharField(max_length=100), required=False, help_text="comma-separated")

    class Meta:
        model = Memory
        fields = [*EDITABLE, "protected"]

    def _api_rule(self, parse, value):
        try:
            return parse(value)
        except DomainError as error:
            raise ValidationError(error.message) from None

    def clean_content(self):
        return self._api_rule(specs.parse_content, self.cleaned_data["content"])

    def clean_tags(self):
        return self._api_rule(specs.parse_tags, self.cleaned_data["tags"])

    def clean_importance(self):
        return self._api_rule(specs.parse_importance, self.cleaned_data["importance"])

    def clean_metadata(self):
        return self._api_rule(specs.parse_metadata, self.cleaned_data["metadata"])


class AssociationInline(admin.TabularInline):
    """The memory's outgoing edges. Edit them in the Association admin, which keeps the graph in step."""

    model = Association
    fk_name = "source"
    template = "admin/memories/memory/association_inline.html"
    fields = ["relation_type", "target", "strength", "origin", "updated_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True
    verbose_name_plural = "outgoing associations"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("target")

    def has_add_permission(self, request, obj=None):
        return False


def rounded(name):
    """A read-only 0–1 or factor field of the memory with two decimals, the exact value on hover."""
    field = Memory._meta.get_field(name)

    @admin.display(description=field.verbose_name)
    def shown(model_admin, memory):
        value = getattr(memory, name)
        return "–" if value is None else format_html('<span title="{}">{}</span>', value, f"{value:.2f}")

    return shown


@admin.register(Memory)
class MemoryAdmin(admin.ModelAdmin):
    form = MemoryAdminForm
    list_display = [
        "short_content",
        "owner",
        "memory_type",
        "tag_list",
        "quality",
        "flags",
        "created",
    ]
    list_filter = [
        QualityTierFilter,
        "memory_type",
        ("owner", MemoryOwnerFilter),
        ArchivedFilter,
        ValidityFilter,
        "quality_boost_applied",
        "protected",
    ]
    search_fields = ["content"]
    search_help_text = "Words in the content, or an exact tag."
    list_select_related = ["owner"]
    show_full_result_count = False
    list_per_page = 50
    ordering = ["-created_at"]
    inlines = [AssociationInline]
    actions = ["reevaluate_quality", "archive", "restore", "reset_boost", "protect", "unprotect"]
    readonly_fields = [
        "id",
        "owner",
        "dashboard_link",
        "source_type",
        "source_id",
        "is_explicit",
        "confidence_shown",
        "corroborating_sources",
        "created_at",
        "updated_at",
        "provenance_updated_at",
        "last_accessed_at",
        "access_count",
        "quality_score_shown",
        "quality_overall_shown",
        "quality_accuracy_shown",
        "quality_completeness_shown",
        "quality_consistency_shown",
        "quality_timeliness_shown",
        "quality_relevance_shown",
        "quality_evaluated_at",
        "quality_boost_applied",
        "quality_boost_date",
        "quality_boost_connection_count",
        "original_quality_before_boost_shown",
        "quality_boost_factor_shown",
        "relevance_score_shown",
        "archived_at",
        "archive_reason",
        "valid_from",
        "valid_until",
        "replacement",
    ]
    fieldsets = [
        (None, {"fields": ["id", "owner", "dashboard_link", *EDITABLE, "protected"]}),
        ("Validity", {"fields": ["valid_from", "valid_until", "replacement"]}),
        (
            "Provenance",
            {
                "fields": [
                    "source_type",
                    "source_id",
                    "is_explicit",
                    "confidence_shown",
                    "corroborating_sources",
                ]
            },
        ),
        (
            "Quality",
            {
                "fields": [
                    "quality_score_shown",
                    "quality_overall_shown",
                    "quality_accuracy_shown",
                    "quality_completeness_shown",
                    "quality_consistency_shown",
                    "quality_timeliness_shown",
                    "quality_relevance_shown",
                    "quality_evaluated_at",
                ]
            },
        ),
        (
            "Association boost",
            {
                "fields": [
                    "quality_boost_applied",
                    "quality_boost_date",
                    "quality_boost_connection_count",
                    "original_quality_before_boost_shown",
                    "quality_boost_factor_shown",
                ]
            },
        ),
        (
            "Lifecycle",
            {
                "fields": [
                    "created_at",
                    "updated_at",
                    "provenance_updated_at",
                    "last_accessed_at",
                    "access_count",
                    "relevance_score_shown",
                    "archived_at",
                    "archive_reason",
                ]
            },
        ),
    ]

    confidence_shown = rounded("confidence")
    quality_score_shown = rounded("quality_score")
    quality_overall_shown = rounded("quality_overall")
    quality_accuracy_shown = rounded("quality_accuracy")
    quality_completeness_shown = rounded("quality_completeness")
    quality_consistency_shown = rounded("quality_consistency")
    quality_timeliness_shown = rounded("quality_timeliness")
    quality_relevance_shown = rounded("quality_relevance")
    original_quality_before_boost_shown = rounded("original_quality_before_boost")
    quality_boost_factor_shown = rounded("quality_boost_factor")
    relevance_score_shown = rounded("relevance_score")

    @admin.display(description="content")
    def short_content(self, memory):
        return memory.content[:90] + ("…" if len(memory.content) > 90 else "")

    @admin.display(description="quality", ordering="quality_score")
    def quality(self, memory):
        score = memory.quality_score
        return format_html(
            '<span class="badge tier-{}" title="{}">{}</span>',
            rules.tier(score),
            score,
            rules.shown_score(score),
        )

    @admin.display(description="tags")
    def tag_list(self, memory):
        return ", ".join(memory.tags) if memory.tags else "–"

    @admin.display(description="flags")
    def flags(self, memory):
        """Only what is true (boosted, protected, archived): no wall of crosses."""
        shown = [
            name
            for name, on in (
                ("boosted", memory.quality_boost_applied),
                ("protected", memory.protected),
                ("archived", memory.archived_at is not None),
            )
            if on
        ]
        return format_html_join(" ", '<span class="pill">{}</span>', ((name,) for name in shown)) or "–"

    @admin.display(description="created", ordering="created_at")
    def created(self, memory):
        return memory.created_at.date()

    @admin.display(description="superseded by")
    def replacement(self, memory):
        if memory.superseded_by_id is None:
            return "— (current)"
        return format_html(
            '<a href="{}">{}</a>',
            reverse("admin:memories_memory_change", args=[memory.superseded_by_id]),
            memory.superseded_by.content[:90],
        )

    @admin.display(description="dashboard")
    def dashboard_link(self, memory):
        return format_html(
            '<a href="{}">Open in the dashboard</a>', reverse("dashboard:memory", args=[memory.pk])
        )

    def get_queryset(self, request):
        return super().get_queryset(request).defer("embedding", "search_vector")

    def changelist_view(self, request, extra_context=None):
        """The list, with the quality histogram and tiers of exactly the rows its filters and
        search select (the changelist's own queryset, before paging)."""
        response = super().changelist_view(request, extra_context)
        changelist = (getattr(response, "context_data", None) or {}).get("cl")
        if changelist is not None:
            response.context_data.update(panels.memory_list_panels(changelist.paginator.summary))
        return response

    def get_paginator(self, request, queryset, per_page, orphans=0, allow_empty_first_page=True):
        return panels.SummaryPaginator(
            queryset, per_page, orphans=orphans, allow_empty_first_page=allow_empty_first_page
        )

    def change_view(self, request, object_id, form_url="", extra_context=None):
        """The edit form, then the memory's radar, histories, findings and graph neighbourhood."""
        memory = self.get_object(request, object_id) if request.method == "GET" else None
        if memory is not None:
            extra_context = {**(extra_context or {}), **panels.memory_panels(memory), "memory": memory}
        return super().change_view(request, object_id, form_url, extra_context)

    def get_search_results(self, request, queryset, search_term):
        found, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        term = search_term.strip().lower()
        if term:
            found |= queryset.filter(tags__contains=[term])
        return found, may_have_duplicates

    def has_add_permission(self, request):
        """Memories are stored through the API, which embeds and evaluates them."""
        return False

    def save_model(self, request, obj, form, change):
        changes = {name: form.cleaned_data[name] for name in form.changed_data if name in EDITABLE}
        if changes:
            services.update_memory(Memory.objects.get(pk=obj.pk), changes)
        if "protected" in form.changed_data:
            services.protect_memories(Memory.objects.filter(pk=obj.pk), form.cleaned_data["protected"])

    def delete_model(self, request, obj):
        services.delete_memory(obj)

    def delete_queryset(self, request, queryset):
        for memory in queryset:
            services.delete_memory(memory)

    @admin.action(description="Re-evaluate quality of the selected memories")
    def reevaluate_quality(self, request, queryset):
        count = metrics.evaluate_memories(list(queryset.values_list("pk", flat=True)), Trigger.EVALUATE)
        self.message_user(request, f"Re-evaluated {count} memories.", messages.SUCCESS)

    @admin.action(description="Archive the selected memories")
    def archive(self, request, queryset):
        archived = services.archive_memories(queryset, reason="admin")
        self.message_user(request, f"Archived {archived} memories.", messages.SUCCESS)

    @admin.action(description="Restore the selected archived memories")
    def restore(self, request, queryset):
        restored, refused = services.restore_memories(queryset)
        self.message_user(request, f"Restored {restored} memories.", messages.SUCCESS)
        if refused:
            self.message_user(
                request,
                f"{refused} not restored: their content is live again as another memory.",
                messages.WARNING,
            )

    @admin.action(description="Reset the association boost")
    def reset_boost(self, request, queryset):
        reset = reset_boosts(queryset.filter(quality_boost_applied=True).values_list("pk", flat=True))
        self.message_user(request, f"Removed the boost of {reset} memories.", messages.SUCCESS)

    @admin.action(description="Protect from archival")
    def protect(self, request, queryset):
        count = services.protect_memories(queryset)
        self.message_user(request, f"Protected {count} memories.", messages.SUCCESS)

    @admin.action(description="Remove protection")
    def unprotect(self, request, queryset):
        count = services.protect_memories(queryset, protected=False)
        self.message_user(request, f"Removed protection from {count} memories.", messages.SUCCESS)
