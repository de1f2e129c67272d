"""Typed readers for environment variables; settings.py is their only caller.

Each reader raises ImproperlyConfigured naming the variable and its valid range, so a bad value
stops the service at start-up instead of being silently replaced.
"""

import ipaddress
import os

from croniter import croniter
from django.core.exceptions import ImproperlyConfigured

TRUE = {"1", "true", "yes", "on"}
FALSE = {"0", "false", "no", "off"}


def env_str(name, default=""):
    return os.environ.get(name, default)


def env_bool(name, default):
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in TRUE:
        return True
    if value in FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be true or false (got {raw!r})")


def _number(name, default, lo, hi, cast, kind):
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = cast(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be {kind} between {lo} and {hi} (got {raw!r})") from None
    if value != value or not lo <= value <= hi:
        raise ImproperlyConfigured(f"{name} must be between {lo} and {hi} (got {raw!r})")
    return value


def env_int(name, default, lo, hi):
    return _number(name, default, lo, hi, int, "an integer")


def env_float(name, default, lo, hi):
    return _number(name, default, lo, hi, float, "a number")


def env_optional_float(name, lo, hi):
    """A number in range, or None when the variable is unset (the feature is off)."""
    return _number(name, None, lo, hi, float, "a number")


def env_list(name, default):
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_choice(name, default, choices):
    value = os.environ.get(name) or default
    if value not in choices:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)} (got {value!r})")
    return value


def env_cron(name, default):
    """A five-field cron expression, or None when the variable is set but empty (the schedule is off)."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = " ".join(raw.split())
    if not value:
        return None
    if len(value.split()) != 5 or not croniter.is_valid(value):
        raise ImproperlyConfigured(
            f"{name} must be a five-field cron expression such as '30 3 * * *', "
            f"or empty for off (got {raw!r})"
        )
    return value


def env_networks(name):
    """A comma-separated list of IP networks in CIDR notation (a bare address is a /32 or /128)."""
    networks = []
    for item in env_list(name, []):
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ImproperlyConfigured(
                f"{name} must be a comma-separated list of IP networks such as 10.0.0.0/8 or "
                f"192.0.2.7 (got {item!r})"
            ) from None
    return networks


def env_address(name, default):
    """An IPv4 or IPv6 address to listen on."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return str(ipaddress.ip_address(raw.strip()))
    except ValueError:
        raise ImproperlyConfigured(
            f"{name} must be an IPv4 or IPv6 address such as 127.0.0.1, 0.0.0.0 or :: (got {raw!r})"
        ) from None
