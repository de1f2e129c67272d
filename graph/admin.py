from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError

from graph import services
from graph.models import AUTHORABLE_RELATIONS, Association, Origin


class AssociationAdminForm(forms.ModelForm):
    relation_type = forms.ChoiceField(choices=[(name, name) for name in AUTHORABLE_RELATIONS])

    class Meta:
        model = Association
        fields = ["source", "target", "relation_type", "strength", "properties"]

    def clean(self):
        cleaned = super().clean()
        source, target = cleaned.get("source"), cleaned.get("target")
        if source and target:
            if source.pk == target.pk:
                raise ValidationError("A memory cannot be associated with itself.")
            if source.owner_id != target.owner_id:
                raise ValidationError("Both memories must belong to the same owner.")
        strength = cleaned.get("strength")
        if strength is not None and not 0 <= strength <= 1:
            self.add_error("strength", "Strength must be between 0 and 1.")
        return cleaned


@admin.register(Association)
class AssociationAdmin(admin.ModelAdmin):
    """Writes go through graph.services, so the AGE graph changes in the same transaction."""

    form = AssociationAdminForm
    list_display = ["id", "source", "relation_type", "target", "strength", "origin", "updated_at"]
    list_filter = ["relation_type", "origin"]
    search_fields = ["source__content", "target__content"]
    list_select_related = ["source", "target"]
    raw_id_fields = ["source", "target"]
    show_full_result_count = False
    list_per_page = 50
    actions = ["promote_to_relates_to"]

    def get_readonly_fields(self, request, obj=None):
        return ["source", "target", "relation_type", "origin"] if obj else ["origin"]

    def save_model(self, request, obj, form, change):
        origin = obj.origin if change else Origin.USER
        link = services.Link(
            obj.source_id, obj.target_id, obj.relation_type, obj.strength, obj.properties or {}
        )
        services.associate_memories(obj.source.owner_id, [link], origin=origin)
        saved = Association.objects.get(
            source_id=obj.source_id, target_id=obj.target_id, relation_type=obj.relation_type
        )
        obj.pk, obj.created_at, obj.updated_at = saved.pk, saved.created_at, saved.updated_at

    def delete_model(self, request, obj):
        services.remove_association(obj.source.owner_id, obj.pk)

    def delete_queryset(self, request, queryset):
        removed = sum(
            services.remove_association(owner_id, pk)
            for pk, owner_id in queryset.values_list("pk", "source__owner_id")
        )
        messages.info(request, f"Removed {removed} associations from the table and the graph.")

    @admin.action(description="Promote selected discovered associations to RELATES_TO")
    def promote_to_relates_to(self, request, queryset):
        promoted = sum(
            services.promote_discovered(owner_id, pk, "RELATES_TO") is not None
            for pk, owner_id in queryset.filter(relation_type="DISCOVERED").values_list(
                "pk", "source__owner_id"
            )
        )
        messages.info(request, f"Promoted {promoted} discovered associations to RELATES_TO.")
