"""The quality rules every part of memsite shares, each defined once (SPEC sections 7 and 8).

Tiers on the effective `quality_score`: high ≥ 0.7, medium 0.5–0.7, low < 0.5. The histogram has
ten 0.1-wide buckets, the last one closed (1.0 falls in 0.9–1.0). A boosted score is the overall
quality times the boost factor, never below the overall quality and never above 1. The API, the
dashboard, the admin and consolidation all use these names; SQL takes its fragments from here.
"""

import math

from django.db.models import Count, Q

HIGH = 0.7
MEDIUM = 0.5
TIERS = ("high", "medium", "low")
TIER_LABELS = {"high": "High (≥ 0.7)", "medium": "Medium (0.5–0.7)", "low": "Low (< 0.5)"}
DIMENSIONS = ("accuracy", "completeness", "consistency", "timeliness", "relevance")
BUCKETS = 10


def tier(score):
    """'high', 'medium' or 'low' for a quality score."""
    if score >= HIGH:
        return "high"
    return "medium" if score >= MEDIUM else "low"


def shown_score(score):
    """A score with two decimals for people, never across a tier boundary from its tier: 0.4996
    is low and reads 0.49, not a red "0.50" beside amber ones. The exact value goes on hover."""
    rounded = round(score, 2)
    if tier(rounded) == tier(score):
        return f"{rounded:.2f}"
    return f"{math.floor(score * 100) / 100:.2f}"


def tier_filter(name, field="quality_score"):
    """The Q filter of one tier."""
    return {
        "high": Q(**{f"{field}__gte": HIGH}),
        "medium": Q(**{f"{field}__gte": MEDIUM, f"{field}__lt": HIGH}),
        "low": Q(**{f"{field}__lt": MEDIUM}),
    }[name]


def tier_counts(where=None, field="quality_score"):
    """Aggregates `high`, `medium` and `low`: the memories of each tier (within `where`)."""
    where = where or Q()
    return {name: Count("pk", filter=where & tier_filter(name, field)) for name in TIERS}


def tier_counts_sql(column="quality_score"):
    """The same three counts as SQL select items, for statements written in SQL."""
    return (
        f"count(*) FILTER (WHERE {column} >= {HIGH}) AS high, "
        f"count(*) FILTER (WHERE {column} >= {MEDIUM} AND {column} < {HIGH}) AS medium, "
        f"count(*) FILTER (WHERE {column} < {MEDIUM}) AS low"
    )


def bucket_filter(index, field="quality_score"):
    """The Q filter of histogram bucket `index` (0–9): [index/10, (index+1)/10), the last closed."""
    lower = Q(**{f"{field}__gte": index / BUCKETS})
    if index == BUCKETS - 1:
        return lower
    return lower & Q(**{f"{field}__lt": (index + 1) / BUCKETS})


def histogram_counts(where=None, field="quality_score"):
    """Aggregates `bucket_0` … `bucket_9`, computed in the same scan as any other aggregate."""
    where = where or Q()
    return {
        f"bucket_{index}": Count("pk", filter=where & bucket_filter(index, field)) for index in range(BUCKETS)
    }


def histogram(aggregates):
    """The ten bucket counts popped from an aggregate result, in bucket order."""
    return [aggregates.pop(f"bucket_{index}") for index in range(BUCKETS)]


def bucket_bounds(index):
    return round(index / BUCKETS, 1), round((index + 1) / BUCKETS, 1)


def boosted_score_sql(overall, factor):
    """SQL for the effective score of a boosted memory: LEAST(1, GREATEST(overall, overall·factor))."""
    return f"LEAST(1, GREATEST({overall}, {overall} * {factor}))"
