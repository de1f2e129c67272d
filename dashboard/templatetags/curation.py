"""Small presentation filters for the dashboard templates."""

from django import template

from quality import rules

register = template.Library()


@register.filter
def tier(score):
    """'high', 'medium' or 'low' for a quality score; '' when there is none."""
    return "" if score is None else rules.tier(score)


@register.filter
def score(value):
    """A 0–1 value with two decimals, or an en dash when missing."""
    return "–" if value is None else f"{value:.2f}"


@register.filter
def quality(value):
    """A quality score as its tier shows it (see `rules.shown_score`), or an en dash."""
    return "–" if value is None else rules.shown_score(value)


@register.filter
def percent(value):
    return "–" if value is None else f"{value * 100:.0f}%"


@register.filter
def lookup(mapping, key):
    return mapping.get(key, 0) if mapping else 0


@register.simple_tag
def query_with(query, **changes):
    """The query string `query` (a QueryDict) with `changes` applied and paging dropped, so the
    other filters stay in the address when one of them changes."""
    updated = query.copy()
    updated.pop("page", None)
    for key, value in changes.items():
        updated[key] = value
    return "?" + updated.urlencode()


@register.filter
def thousands(value):
    """A whole number with thousands separators (1,234); other values as they are."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"
