"""The dashboard's memory filters (type, tag, owner), one django-filter FilterSet."""

import django_filters
from django import forms
from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef

from memories.models import Memory, MemoryType


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
