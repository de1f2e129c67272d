from django.contrib import admin, messages

from memsite.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["user", "name", "prefix", "created_at", "last_used_at"]
    list_select_related = ["user"]
    search_fields = ["user__username", "name", "prefix"]
    fields = ["user", "name"]

    def save_model(self, request, obj, form, change):
        if change:
            super().save_model(request, obj, form, change)
            return
        token, plain = ApiToken.issue(obj.user, obj.name)
        obj.pk = token.pk
        messages.warning(request, f"New API token (shown once): {plain}")
