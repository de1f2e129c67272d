"""Is the service healthy: the database reachable, pgvector and AGE installed."""

from django.conf import settings
from django.db import DatabaseError, connection


def service_health():
    """The health report; its `status` is "ok", "degraded" (an extension missing) or "unavailable"."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT extname, extversion FROM pg_extension WHERE extname IN ('vector', 'age')")
            extensions = dict(cursor.fetchall())
    except DatabaseError:
        return {
            "status": "unavailable",
            "database": "unavailable",
            "pgvector": "unknown",
            "age": "unknown",
            "version": settings.VERSION,
        }
    pgvector = "ok" if "vector" in extensions else "missing"
    age = "ok" if "age" in extensions else "missing"
    return {
        "status": "ok" if pgvector == "ok" and age == "ok" else "degraded",
        "database": "ok",
        "pgvector": pgvector,
        "age": age,
        "version": settings.VERSION,
    }
