"""Small presentation filters for the dashboard templates."""

from django import template

from quality.queries import HIGH, MEDIUM

register = template.Library()


@register.filter
def tier(score):
    """'high', 'medium' or 'low' for a quality score; '' when there is none."""
    if score is None:
        return ""
    if score >= HIGH:
        return "high"
    if score >= MEDIUM:
        return "medium"
    return "low"


@register.filter
def score(value):
    """A 0–1 value with two decimals, or an en dash when missing."""
    return "–" if value is None else f"{value:.2f}"


@register.filter
def percent(value):
    return "–" if value is None else f"{value * 100:.0f}%"


@register.filter
def lookup(mapping, key):
    return mapping.get(key, 0) if mapping else 0
