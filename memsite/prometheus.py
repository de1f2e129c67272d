"""Queue and job figures for GET /metrics, read from the database at each scrape.

django-prometheus measures requests (latency by view, responses by status, so 429s) and
database errors in each web process; the queue lives in the database, so its figures are read
there and are the same whichever process answers: jobs by queue, task and status, the age of
the last worker heartbeat, and per task the attempts that succeeded or failed and their time.
"""

from django.db import DatabaseError, connection
from prometheus_client.core import REGISTRY, CounterMetricFamily, GaugeMetricFamily

from memsite.jobs import QUEUE_COUNTS_SQL, queue_health

ATTEMPTS_SQL = """
SELECT task_name, error = '' AS succeeded, count(*), coalesce(sum(duration_ms), 0) / 1000.0
FROM memsite_joboutcome GROUP BY 1, 2
"""


class QueueCollector:
    def describe(self):
        """The metric names, without values: registering must not query the database."""
        yield GaugeMetricFamily("memsite_jobs", "", labels=["queue", "task", "status"])
        yield GaugeMetricFamily("memsite_jobs_waiting", "")
        yield GaugeMetricFamily("memsite_worker_heartbeat_age_seconds", "")
        yield CounterMetricFamily("memsite_job_attempts", "", labels=["task", "outcome"])
        yield CounterMetricFamily("memsite_job_duration_seconds", "", labels=["task", "outcome"])

    def collect(self):
        try:
            with connection.cursor() as cursor:
                cursor.execute(QUEUE_COUNTS_SQL)
                counts = cursor.fetchall()
                cursor.execute(ATTEMPTS_SQL)
                attempts = cursor.fetchall()
            health = queue_health()
        except DatabaseError:
            return
        jobs = GaugeMetricFamily(
            "memsite_jobs", "Jobs waiting, running or failed", labels=["queue", "task", "status"]
        )
        for queue, task, status, count in counts:
            jobs.add_metric([queue, task, status], count)
        yield jobs
        yield GaugeMetricFamily("memsite_jobs_waiting", "Jobs due to start now", value=health["waiting"])
        age = health["heartbeat_age_seconds"]
        yield GaugeMetricFamily(
            "memsite_worker_heartbeat_age_seconds",
            "Seconds since the last worker heartbeat (NaN: no worker)",
            value=float("nan") if age is None else age,
        )
        runs = CounterMetricFamily(
            "memsite_job_attempts", "Job attempts by task and outcome", labels=["task", "outcome"]
        )
        seconds = CounterMetricFamily(
            "memsite_job_duration_seconds", "Time spent in job attempts", labels=["task", "outcome"]
        )
        for task, succeeded, count, total in attempts:
            outcome = "succeeded" if succeeded else "failed"
            runs.add_metric([task, outcome], count)
            seconds.add_metric([task, outcome], float(total))
        yield runs
        yield seconds


def register():
    """Add the queue collector to the default registry (once per process)."""
    REGISTRY.register(QueueCollector())
