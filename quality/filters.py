"""The inconsistency review queue's filters, one django-filter FilterSet for API and dashboard."""

import django_filters
from django.db.models import Q

from quality.models import Inconsistency


class InconsistencyFilterSet(django_filters.FilterSet):
    type = django_filters.ChoiceFilter(choices=Inconsistency.Type.choices, empty_label="All types")
    status = django_filters.ChoiceFilter(choices=Inconsistency.Status.choices, empty_label="All statuses")
    memory = django_filters.UUIDFilter(method="filter_memory", label="Memory id")
    min_severity = django_filters.NumberFilter(
        field_name="severity", lookup_expr="gte", label="Minimum severity"
    )

    class Meta:
        model = Inconsistency
        fields = ["type", "status", "memory", "min_severity"]

    def filter_memory(self, queryset, name, value):
        return queryset.filter(Q(memory1_id=value) | Q(memory2_id=value))
