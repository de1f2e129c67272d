"""Time phrases of recall's `time_query`, resolved to a (start, end) range on the memory's time,
and the calendar dates a query's own text names (`named_in`).

Phrases (case and surrounding spaces ignored; weeks start on Monday; times in UTC):
today, yesterday, last/past 24 hours, last/past 48 hours, last/past N days, this week,
last week (the previous calendar week), this month, last month, this year, last year,
"in May 2023" (or "May 2023", "in 2023"), "since March 2024" (or "since 2024").
`end` is the last microsecond of the range, or None when the range runs up to now.
"""

import re
from datetime import UTC, datetime, timedelta

MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
PHRASES = (
    "today, yesterday, last 24 hours, last 48 hours, last N days, this week, last week, "
    "this month, last month, this year, last year, in <month> <year>, since <month> <year>"
)
# Digits are ASCII digits only: "last ٣ days" or "in May ２０２３" is not one of the phrases.
HOURS = re.compile(r"(?:last|past) (24|48) hours", re.ASCII)
DAYS = re.compile(r"(?:last|past) (\d{1,4}) days?", re.ASCII)
MONTH_YEAR = re.compile(r"(in |since )?(?:([a-z]+) )?(\d{4})", re.ASCII)
TICK = timedelta(microseconds=1)
# Dates named in free text: "8 May 2023", "8th of May, 2023", "May 8, 2023", "2023-05-08", "May 2023".
DAY_MONTH_YEAR = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)? (?:of )?([a-z]+)\.?,? (\d{4})\b", re.ASCII)
MONTH_DAY_YEAR = re.compile(r"\b([a-z]+)\.? (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})\b", re.ASCII)
ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b", re.ASCII)
NAMED_MONTH = re.compile(r"\b([a-z]+)\.?,? (\d{4})\b", re.ASCII)


def _next_month(first):
    """The first day of the month after the one `first` (a first of a month) begins."""
    return (first + timedelta(days=32)).replace(day=1)


def _calendar(phrase, now):
    """(start, next start) of the calendar ranges: days, weeks, months, years."""
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    monday = today - timedelta(days=today.weekday())
    month = today.replace(day=1)
    year = month.replace(month=1)
    previous_month = (month - timedelta(days=1)).replace(day=1)
    return {
        "today": (today, today + timedelta(days=1)),
        "yesterday": (today - timedelta(days=1), today),
        "this week": (monday, monday + timedelta(days=7)),
        "last week": (monday - timedelta(days=7), monday),
        "this month": (month, _next_month(month)),
        "last month": (previous_month, month),
        "this year": (year, year.replace(year=year.year + 1)),
        "last year": (year.replace(year=year.year - 1), year),
    }.get(phrase)


def resolve(phrase, now):
    """(start, end) for `phrase` at `now` (an aware datetime); ValueError for an unknown phrase."""
    phrase = " ".join(phrase.casefold().split())
    calendar = _calendar(phrase, now)
    if calendar:
        return calendar[0], calendar[1] - TICK
    if match := HOURS.fullmatch(phrase):
        return now - timedelta(hours=int(match[1])), None
    if match := DAYS.fullmatch(phrase):
        if int(match[1]) == 0:
            raise ValueError(f"unknown time phrase {phrase!r}")
        return now - timedelta(days=int(match[1])), None
    match = MONTH_YEAR.fullmatch(phrase)
    if not match or (match[2] and match[2] not in MONTHS):
        raise ValueError(f"unknown time phrase {phrase!r}")
    year = int(match[3])
    if not 1 <= year <= 9998:
        raise ValueError(f"unknown time phrase {phrase!r}")
    zone = now.tzinfo
    if match[2]:
        start = datetime(year, MONTHS[match[2]], 1, tzinfo=zone)
        following = _next_month(start)
    else:
        start = datetime(year, 1, 1, tzinfo=zone)
        following = start.replace(year=year + 1)
    if match[1] == "since ":
        return start, None
    return start, following - TICK


def _day(year, month, day):
    """That day at midnight UTC, or None when it does not exist (31 February, year 0)."""
    try:
        return datetime(year, month, day, tzinfo=UTC) if 1 <= year <= 9998 else None
    except ValueError:
        return None


def named_in(text):
    """(start, end) of the first calendar day, or else month, that `text` names, in UTC, `end`
    excluded; None when it names neither. A day that does not exist counts as its month."""
    text = " ".join(text.casefold().split())
    days = [
        (m.start(), _day(int(m[3]), MONTHS[m[2]], int(m[1])))
        for m in DAY_MONTH_YEAR.finditer(text)
        if m[2] in MONTHS
    ]
    days += [
        (m.start(), _day(int(m[3]), MONTHS[m[1]], int(m[2])))
        for m in MONTH_DAY_YEAR.finditer(text)
        if m[1] in MONTHS
    ]
    days += [(m.start(), _day(int(m[1]), int(m[2]), int(m[3]))) for m in ISO_DATE.finditer(text)]
    for _, start in sorted(days, key=lambda found: found[0]):
        if start is not None:
            return start, start + timedelta(days=1)
    for match in NAMED_MONTH.finditer(text):
        start = _day(int(match[2]), MONTHS[match[1]], 1) if match[1] in MONTHS else None
        if start is not None:
            return start, _next_month(start)
    return None
