"""Is the service healthy: the database reachable, pgvector and AGE installed, background jobs
run, read replicas in use."""

from django.conf import settings
from django.db import DatabaseError, connection

from memsite import jobs, replicas


def service_health():
    """The health report; `status` is "ok", "degraded" or "unavailable".

    "unavailable": the database cannot be reached. "degraded": pgvector or AGE is missing, or no
    worker has sent a heartbeat for MEMSITE_WORKER_STALE_SECONDS (requests are still served, only
    background work is stuck), or a read replica is skipped: down, not a standby,
    or lagging more than MEMSITE_REPLICA_MAX_LAG_SECONDS (its reads go to the primary). Each
    replica's state is the one its last check measured (at most MEMSITE_REPLICA_CHECK_SECONDS
    old). `serving` says whether requests can be answered.
    """
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT extname, extversion FROM pg_extension WHERE extname IN ('vector', 'age')")
            extensions = dict(cursor.fetchall())
        queue = jobs.queue_health()
        standbys = [replicas.replica_status(alias) for alias in settings.REPLICA_ALIASES]
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
    extensions_ok = pgvector == "ok" and age == "ok"
    replicas_ok = all(standby["state"] == "ok" for standby in standbys)
    return {
        "status": "ok" if extensions_ok and not queue["stalled"] and replicas_ok else "degraded",
        "database": "ok",
        "pgvector": pgvector,
        "age": age,
        "queue": {"waiting": queue["waiting"], "heartbeat_age_seconds": queue["heartbeat_age_seconds"]},
        "replicas": standbys,
        "version": settings.VERSION,
    }


def is_serving(report):
    """Whether requests can be answered: the database is reachable and both extensions are there."""
    return report["database"] == "ok" and report["pgvector"] == "ok" and report["age"] == "ok"
