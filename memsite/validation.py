"""Rules for values a client sends, shared by every app: one home for each.

Each function takes a decoded value and returns the clean Python value or raises `Invalid` with
the exact message. Text must be storable (no NUL, no lone surrogate), dates fall within
EARLIEST–LATEST once converted to UTC, numbers are finite, flags are JSON booleans.
Numbers are compared as given, never converted first: a JSON integer may have any number of digits.
"""

import math
import sys
import uuid
from datetime import UTC, datetime

from django.http import QueryDict
from rest_framework.exceptions import ParseError, UnsupportedMediaType

from memsite.errors import Invalid

JSON_BODY_REQUIRED = "JSON body is required"
# Every date a client sends must fall in this range once converted to UTC: far enough from the
# ends of the calendar that no conversion or date arithmetic anywhere can overflow.
EARLIEST = datetime(1000, 1, 1, tzinfo=UTC)
LATEST = datetime(9000, 12, 31, 23, 59, 59, tzinfo=UTC)
MAX_JSON_DEPTH = 10
MAX_JSON_ITEMS = 1000
# The largest magnitude a number in a JSON value may have: what a 64-bit float holds, so every
# client and every JSON reader can read it back.
MAX_JSON_MAGNITUDE = sys.float_info.max


def is_number(value):
    """True for a JSON number (an int or float, not a boolean)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def read_number(value):
    """A JSON number as it is, or the number a string spells (AutoMem accepts "0.5"); None for
    anything else."""
    if is_number(value):
        return value
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def is_finite_within(value, lo, hi):
    """True when the number `value` is finite and within lo–hi, compared exactly: an integer of
    any size is compared as it is, never converted to a float (which overflows)."""
    if isinstance(value, float) and not math.isfinite(value):
        return False
    return lo <= value <= hi


def json_body(request, automem_errors=False, optional=False):
    """The request's JSON object; a missing or non-object body is a 400 "JSON body is required",
    except that with `optional` a missing body is an empty object (every field has a default).

    A malformed body is DRF's 400 and a body in another media type its 415, except with
    `automem_errors`, where both are the same 400 as in AutoMem (the graph endpoints).
    """
    try:
        if optional and request.stream is None:
            return {}
        data = None if request.stream is None else request.data
        if automem_errors and not request.content_type.startswith("application/json"):
            data = None
    except (ParseError, UnsupportedMediaType):
        if not automem_errors:
            raise
        data = None
    if isinstance(data, QueryDict) or not isinstance(data, dict):
        raise Invalid(JSON_BODY_REQUIRED)
    return data


def body_as_query(data):
    """A JSON object read as a query string, so one parser serves both (`POST /recall`): lists
    become repeated parameters, booleans `true`/`false`, null is absent."""
    params = QueryDict(mutable=True)
    for name, value in data.items():
        for item in value if isinstance(value, list) else [value]:
            if item is not None:
                params.appendlist(name, str(item).lower() if isinstance(item, bool) else str(item))
    return params


def is_clean_text(value):
    """False for text PostgreSQL cannot store: NUL characters or lone surrogates."""
    if "\x00" in value:
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def parse_uuid(value, message="memory_id must be a valid UUID"):
    """A UUID from its text form (surrounding spaces ignored); anything else is `message`."""
    try:
        if isinstance(value, uuid.UUID):
            return value
        if not isinstance(value, str):
            raise ValueError
        return uuid.UUID(value.strip())
    except ValueError:
        raise Invalid(message) from None


def parse_timestamp(value, field="timestamp", message="Invalid ISO timestamp"):
    """An ISO 8601 date or date-time in UTC within EARLIEST–LATEST; one without a zone is UTC."""
    if not isinstance(value, str) or not value.strip():
        raise Invalid(message)
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        raise Invalid(message) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    try:
        parsed = parsed.astimezone(UTC)
    except OverflowError:
        parsed = None
    if parsed is None or not EARLIEST <= parsed <= LATEST:
        raise Invalid(f"'{field}' must be between {EARLIEST:%Y-%m-%d} and {LATEST:%Y-%m-%d} (UTC)")
    return parsed


def parse_flag(value, field, default=False):
    """A JSON boolean; absent or null is `default`. 0, 1, "false" and the like are refused."""
    if value is None:
        return default
    if not isinstance(value, bool):
        raise Invalid(f"'{field}' must be a boolean")
    return value


def check_json_value(value, field, max_magnitude=MAX_JSON_MAGNITUDE, depth=1, counter=None):
    """A JSON value PostgreSQL can store: clean text, finite numbers of at most `max_magnitude`
    (less where the graph stores them too), at most MAX_JSON_DEPTH levels and MAX_JSON_ITEMS values."""
    counter = counter if counter is not None else [0]
    if depth > MAX_JSON_DEPTH:
        raise Invalid(f"'{field}' is nested too deeply (at most {MAX_JSON_DEPTH} levels)")
    counter[0] += 1
    if counter[0] > MAX_JSON_ITEMS:
        raise Invalid(f"'{field}' has too many values (at most {MAX_JSON_ITEMS})")
    if isinstance(value, dict):
        for key, item in value.items():
            if not is_clean_text(key):
                raise Invalid(f"'{field}' contains characters that cannot be stored")
            check_json_value(item, field, max_magnitude, depth + 1, counter)
    elif isinstance(value, list):
        for item in value:
            check_json_value(item, field, max_magnitude, depth + 1, counter)
    elif isinstance(value, str):
        if not is_clean_text(value):
            raise Invalid(f"'{field}' contains characters that cannot be stored")
    elif is_number(value):
        if isinstance(value, float) and not math.isfinite(value):
            raise Invalid(f"'{field}' must not contain NaN or Infinity")
        if abs(value) > max_magnitude:
            raise Invalid(f"'{field}' must not contain numbers beyond ±{max_magnitude:.2g}")
    return value


TRUE_WORDS = {"1", "true", "yes", "on"}
FALSE_WORDS = {"0", "false", "no", "off"}


def parse_words(raws):
    """A list parameter's values, given repeated (`?tags=a&tags=b`) or comma-separated (`?tags=a,b`):
    stripped, lower-cased, blanks dropped, duplicates merged."""
    values = []
    for raw in raws:
        for part in raw.split(","):
            value = part.strip().lower()
            if value and value not in values:
                values.append(value)
    return values


def parse_int(raw, name, default, lo, hi):
    """A query-string integer within lo–hi; absent or empty is `default`."""
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value is None or not lo <= value <= hi:
        raise Invalid(f"'{name}' must be an integer between {lo} and {hi}")
    return value


def parse_number(raw, name, default, lo=0.0, hi=1.0):
    """A query-string number within lo–hi (finite); absent or empty is `default`."""
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        value = None
    if value is None or not math.isfinite(value) or not lo <= value <= hi:
        raise Invalid(f"'{name}' must be a number between {lo:g} and {hi:g}")
    return value


def parse_word_flag(raw, name, default=False):
    """A query-string flag: one of TRUE_WORDS or FALSE_WORDS; absent or empty is `default`."""
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in TRUE_WORDS:
        return True
    if value in FALSE_WORDS:
        return False
    raise Invalid(f"'{name}' must be true or false")


def parse_choice(raw, name, default, choices):
    """One of `choices`, case-insensitive; absent or empty is `default`."""
    value = (raw or default).strip().lower()
    if value not in choices:
        raise Invalid(f"'{name}' must be one of: {', '.join(choices)}")
    return value
