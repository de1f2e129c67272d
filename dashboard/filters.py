"""The dashboard's filters: type, tag and owner for the quality page, and those plus tier,
archived, boosted and text search for the memory browser; owner for the review queue and the
boost history."""

import django_filters
from django import forms
from django.contrib.postgres.search import SearchQuery
from django.db.models import Q

from memories.models import LIVE, SEARCH_CONFIG, Memory, MemoryType
from memories.queries import memory_owners
from quality import rules
from quality.filters import InconsistencyFilterSet
from quality.models import QualityBoost


class MemoryFilterSet(django_filters.FilterSet):
    memory_type = django_filters.ChoiceFilter(
        label="Type", choices=MemoryType.choices, empty_label="All types"
    )
    tag = django_filters.CharFilter(label="Tag", method="filter_tag")
    owner = django_filters.ModelChoiceFilter(
        label="Owner", queryset=memory_owners(), empty_label="All owners"
    )

    class Meta:
        model = Memory
        fields = ["memory_type", "tag", "owner"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.form.fields["tag"].widget = forms.TextInput(attrs={"placeholder": "any tag, e.g. python"})

    def filter_tag(self, queryset, name, value):
        return queryset.filter(tags__contains=[value.strip().lower()])


class StableOrderingFilter(django_filters.OrderingFilter):
    """Ordering by a column, then by id in the same direction (one index serves both directions),
    so that pages do not overlap on equal values."""

    def filter(self, qs, value):
        ordered = super().filter(qs, value)
        if not value:
            return ordered
        first = ordered.query.order_by[0]
        return ordered.order_by(*ordered.query.order_by, "-id" if first.startswith("-") else "id")


class MemoryBrowserFilterSet(MemoryFilterSet):
    tier = django_filters.ChoiceFilter(
        label="Tier", choices=list(rules.TIER_LABELS.items()), method="filter_tier", empty_label="All tiers"
    )
    archived = django_filters.ChoiceFilter(
        label="Archived",
        choices=[("no", "Live"), ("yes", "Archived")],
        method="filter_archived",
        empty_label="Live and archived",
    )
    boosted = django_filters.ChoiceFilter(
        label="Boosted",
        choices=[("yes", "Boosted"), ("no", "Not boosted")],
        method="filter_boosted",
        empty_label="Any",
    )
    q = django_filters.CharFilter(label="Search", method="filter_text")
    sort = StableOrderingFilter(
        label="Order",
        fields=(("created_at", "created"), ("quality_score", "quality")),
        field_labels={"created_at": "Created", "quality_score": "Quality"},
        empty_label="Newest first",
    )

    class Meta(MemoryFilterSet.Meta):
        fields = [*MemoryFilterSet.Meta.fields, "tier", "archived", "boosted", "q", "sort"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.form.fields["q"].widget = forms.TextInput(attrs={"placeholder": "words in the content"})

    def filter_tier(self, queryset, name, value):
        return queryset.filter(rules.tier_filter(value))

    def filter_archived(self, queryset, name, value):
        return queryset.filter(LIVE if value == "no" else ~LIVE)

    def filter_boosted(self, queryset, name, value):
        return queryset.filter(quality_boost_applied=value == "yes")

    def filter_text(self, queryset, name, value):
        """Full-text words of the content (the search index), or an exact tag."""
        words = SearchQuery(value, config=SEARCH_CONFIG, search_type="websearch")
        return queryset.filter(Q(search_vector=words) | Q(tags__contains=[value.strip().lower()]))


class FindingFilterSet(InconsistencyFilterSet):
    """The review queue's filters, plus whose memories the findings are about."""

    owner = django_filters.ModelChoiceFilter(
        label="Owner", queryset=memory_owners(), field_name="memory1__owner", empty_label="All owners"
    )

    class Meta(InconsistencyFilterSet.Meta):
        fields = [*InconsistencyFilterSet.Meta.fields, "owner"]


class BoostFilterSet(django_filters.FilterSet):
    """The boost history's filter: whose memories were boosted."""

    owner = django_filters.ModelChoiceFilter(
        label="Owner", queryset=memory_owners(), field_name="memory__owner", empty_label="All owners"
    )

    class Meta:
        model = QualityBoost
        fields = ["owner"]
