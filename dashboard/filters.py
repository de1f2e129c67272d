"""The dashboard's memory filters (type, tag, owner), one django-filter FilterSet, and the quality
tiers the admin's list filter shares."""

import django_filters
from django import forms
from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Q

from memories.models import Memory, MemoryType
from quality.queries import HIGH, MEDIUM

TIERS = {
    "high": Q(quality_score__gte=HIGH),
    "medium": Q(quality_score__gte=MEDIUM, quality_score__lt=HIGH),
    "low": Q(quality_score__lt=MEDIUM),
}
TIER_CHOICES = [("high", "High (≥ 0.7)"), ("medium", "Medium (0.5–0.7)"), ("low", "Low (< 0.5)")]


class MemoryFilterSet(django_filters.FilterSet):
    memory_type = django_filters.ChoiceFilter(
        label="Type", choices=MemoryType.choices, empty_label="All types"
    )
    tag = django_filters.CharFilter(label="Tag", method="filter_tag")
    owner = django_filters.ModelChoiceFilter(
        label="Owner",
        queryset=get_user_model()
        .objects.filter(Exists(Memory.objects.filter(owner=OuterRef("pk"))))
        .order_by("username"),
        empty_label="All owners",
    )

    class Meta:
        model = Memory
        fields = ["memory_type", "tag", "owner"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.form.fields["tag"].widget = forms.TextInput(attrs={"placeholder": "any tag, e.g. python"})

    def filter_tag(self, queryset, name, value):
        return queryset.filter(tags__contains=[value.strip().lower()])

