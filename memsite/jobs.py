"""The job queue seen from the service: worker defaults, outcome recording and queue health.

Jobs are Procrastinate jobs in the service's own database (tables `procrastinate_*`); workers
are `manage.py procrastinate worker` processes on any machine that reaches that database.
"""

import logging
import time
from datetime import timedelta

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection, transaction
from django.utils import timezone
from procrastinate import RetryStrategy
from procrastinate.contrib.django import app
from procrastinate.contrib.django.models import ProcrastinateJob, ProcrastinateWorker
from procrastinate.exceptions import AlreadyEnqueued, ConnectorException

from memsite.errors import Conflict
from memsite.models import JobOutcome

logger = logging.getLogger(__name__)

# Transient errors are retried: the connection lost or the server restarting, and a lost race
# (a deadlock or serialization failure, which write services report as Conflict).
TRANSIENT_ERRORS = (OperationalError, InterfaceError, Conflict)
TRANSIENT_RETRY = RetryStrategy(max_attempts=5, exponential_wait=2, retry_exceptions=list(TRANSIENT_ERRORS))
HEARTBEAT_SECONDS = 10
STALLED_WORKER_SECONDS = 30

WAITING_SQL = (
    "SELECT count(*) FROM procrastinate_jobs "
    "WHERE status = 'todo' AND (scheduled_at IS NULL OR scheduled_at <= now())"
)
HEARTBEAT_SQL = "SELECT extract(epoch FROM now() - max(last_heartbeat)) FROM procrastinate_workers"


def record_outcome(call_next, context, worker):
    """Task middleware: a JobOutcome row for each attempt of a sync task.

    It runs inside Procrastinate's own Django middleware, which closes a thread's connection
    after a job the way Django does after a request (so CONN_MAX_AGE applies).
    """
    started = time.perf_counter()
    error, result = "", None
    try:
        result = call_next()
        return result
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"[:2000]
        raise
    finally:
        try:
            JobOutcome.objects.create(
                job_id=context.job.id,
                task_name=context.job.task_name,
                attempt=context.job.attempts + 1,
                duration_ms=round((time.perf_counter() - started) * 1000),
                error=error,
                result=result if isinstance(result, dict) else None,
            )
        except DatabaseError:
            logger.exception("could not record the outcome of job %s", context.job.id)


def configure_app(procrastinate_app):
    """PROCRASTINATE_ON_APP_READY: heartbeats for stalled-job recovery, outcome recording."""
    defaults = procrastinate_app.worker_defaults
    procrastinate_app.worker_defaults = {
        **defaults,
        "update_heartbeat_interval": HEARTBEAT_SECONDS,
        "stalled_worker_timeout": STALLED_WORKER_SECONDS,
        "task_middleware": [*defaults.get("task_middleware", []), record_outcome],
    }


def defer(task, **kwargs):
    """Queue `task` with these arguments; answers the job id.

    The job row is written on the caller's Django connection, so inside a transaction it exists
    exactly when that transaction commits: a rolled-back store leaves no job, a committed one
    never loses its job.
    """
    return task.defer(**kwargs)


def defer_task(name, **kwargs):
    """Queue the task registered as `name` (a service defers a higher app's job by its name, so it
    never imports that app's tasks); answers the job id."""
    return app.configure_task(name).defer(**kwargs)


def defer_unless_waiting(task):
    """Queue `task`, whose queueing lock allows one waiting job; None when one already waits."""
    try:
        with transaction.atomic():  # a refused duplicate job must not abort the caller's transaction
            return defer(task)
    except AlreadyEnqueued:
        return None


def queue_health():
    """Jobs waiting to start, seconds since the last worker heartbeat (None: no worker), and
    whether background work is stuck: no worker has sent a heartbeat for MEMSITE_WORKER_STALE_SECONDS
    (a missing worker is reported whether or not jobs wait yet: the schedules need one)."""
    with connection.cursor() as cursor:
        cursor.execute(WAITING_SQL)
        (waiting,) = cursor.fetchone()
        cursor.execute(HEARTBEAT_SQL)
        (age,) = cursor.fetchone()
    heartbeat_age = None if age is None else round(float(age), 1)
    stale = heartbeat_age is None or heartbeat_age > settings.WORKER_STALE_SECONDS
    return {"waiting": waiting, "heartbeat_age_seconds": heartbeat_age, "stalled": stale}


# How far a waiting or running job of a task is, by task name: filled by the apps that own the
# tasks (their AppConfig.ready()), so this module never imports them.
PROGRESS_READERS = {}


def register_progress(task_name, reader):
    """`reader(job arguments)` answers the progress of a job of `task_name` (a dict, or None)."""
    PROGRESS_READERS[task_name] = reader


def job_progress(job):
    reader = PROGRESS_READERS.get(job.task_name)
    if reader is None or job.status not in ("todo", "doing"):
        return None
    return reader(job.args)


def job_for_user(user, job_id):
    """The job as a dict if `user` queued it for themselves (or is staff), else None; `progress`
    is the counts so far of a waiting or running job whose task reports them."""
    job = ProcrastinateJob.objects.filter(pk=job_id).first()
    if job is None or not (user.is_staff or job.args.get("owner_id") == user.pk):
        return None
    last = JobOutcome.objects.filter(job_id=job.pk).order_by("-finished_at", "-pk").first()
    return {
        "id": job.pk,
        "task": job.task_name,
        "queue": job.queue_name,
        "status": job.status,
        "attempts": job.attempts,
        "progress": job_progress(job),
        "result": last.result if last and job.status == "succeeded" else None,
        "error": last.error if last and job.status == "failed" else "",
    }


def retry_failed_job(job_id):
    """Put a failed job back in the queue now; False when it is not (or no longer) failed."""
    job = ProcrastinateJob.objects.filter(pk=job_id, status="failed").first()
    if job is None:
        return False
    try:
        app.job_manager.retry_job_by_id(job_id, retry_at=None)
    except ConnectorException:
        return False
    return True


QUEUE_COUNTS_SQL = """
SELECT queue_name, task_name, status::text, count(*)
FROM procrastinate_jobs
WHERE status IN ('todo', 'doing', 'failed')
GROUP BY 1, 2, 3
ORDER BY 1, 2, 3
"""

LAST_ERROR_SQL = """
SELECT DISTINCT ON (job_id) job_id, error FROM memsite_joboutcome
WHERE job_id = ANY(%s) AND error <> '' ORDER BY job_id, finished_at DESC, id DESC
"""


def queue_overview(limit=50):
    """What the Jobs page shows: counts by queue and task, workers, running and failed jobs."""
    with connection.cursor() as cursor:
        cursor.execute(QUEUE_COUNTS_SQL)
        counts = [
            {"queue": queue, "task": task, "status": status, "count": count}
            for queue, task, status, count in cursor.fetchall()
        ]
    workers = ProcrastinateWorker.objects.order_by("-last_heartbeat")[:limit]
    running = list(ProcrastinateJob.objects.filter(status="doing").order_by("id")[:limit])
    failed = list(ProcrastinateJob.objects.filter(status="failed").order_by("-id")[:limit])
    with connection.cursor() as cursor:
        cursor.execute(LAST_ERROR_SQL, [[job.pk for job in failed]])
        errors = dict(cursor.fetchall())
    for job in failed:
        job.error = errors.get(job.pk, "")
    return {
        "health": queue_health(),
        "counts": counts,
        "workers": list(workers),
        "running": running,
        "failed": failed,
    }


HISTORY_SIZE = 200
RANGES = {"1": 1, "7": 7, "30": 30, "all": None}

HISTORY_SQL = """
SELECT o.job_id, o.task_name, u.username, o.attempt, o.duration_ms, o.error, o.finished_at,
       j.status::text
FROM (SELECT * FROM memsite_joboutcome ORDER BY finished_at DESC, id DESC LIMIT %s) o
LEFT JOIN procrastinate_jobs j ON j.id = o.job_id
LEFT JOIN auth_user u ON u.id::text = j.args->>'owner_id'
ORDER BY o.finished_at DESC, o.id DESC
"""

TASK_STATS_SQL = """
SELECT task_name, count(*) FILTER (WHERE error = ''), count(*) FILTER (WHERE error <> ''),
       percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms),
       percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms), max(finished_at)
FROM memsite_joboutcome
WHERE %(since)s::timestamptz IS NULL OR finished_at >= %(since)s::timestamptz
GROUP BY task_name ORDER BY task_name
"""


def job_history(days=7, size=HISTORY_SIZE):
    """The newest `size` job attempts (task, owner, outcome, attempt, duration, error, the job's
    status now) and, over the last `days` days (None: all), attempts per task: succeeded, failed
    and the median and 95th-percentile durations."""
    since = None if days is None else timezone.now() - timedelta(days=days)
    with connection.cursor() as cursor:
        cursor.execute(HISTORY_SQL, [size])
        history = [
            {
                "job_id": job_id,
                "task": task,
                "owner": owner,
                "attempt": attempt,
                "duration_ms": duration,
                "error": error,
                "finished_at": finished,
                "outcome": "failed" if error else "succeeded",
                "status": status or "deleted",
            }
            for job_id, task, owner, attempt, duration, error, finished, status in cursor.fetchall()
        ]
        cursor.execute(TASK_STATS_SQL, {"since": since})
        per_task = [
            {
                "task": task,
                "succeeded": succeeded,
                "failed": failed,
                "median_ms": median,
                "p95_ms": p95,
                "last": last,
            }
            for task, succeeded, failed, median, p95, last in cursor.fetchall()
        ]
    return {"history": history, "per_task": per_task}
