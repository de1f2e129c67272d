"""Background jobs of the queue itself: recovery of jobs whose worker died, pruning of old jobs."""

import logging
from datetime import timedelta

from asgiref.sync import sync_to_async
from django.utils import timezone
from procrastinate.contrib.django import app
from procrastinate.exceptions import ConnectorException
from procrastinate.jobs import Status

from memsite.jobs import STALLED_WORKER_SECONDS
from memsite.models import JobOutcome

logger = logging.getLogger(__name__)

# Succeeded jobs (and their outcomes) are kept this long; failed ones stay until retried or pruned.
KEEP_SUCCEEDED = timedelta(days=7)


@app.periodic(cron="* * * * *")
@app.task(queue="maintenance", queueing_lock="retry-stalled-jobs", pass_context=True)
async def retry_stalled_jobs(context, timestamp):
    """Put back in the queue the running jobs of workers that stopped sending heartbeats.

    Each job is recovered on its own. A job whose queueing lock is taken meanwhile by a newer job
    of the same kind waiting to start (a consolidation run requested after its worker died) cannot
    wait again beside it: it is settled as failed, and the newer job starts in its place.
    """
    manager = context.app.job_manager
    stalled = await manager.get_stalled_jobs(seconds_since_heartbeat=STALLED_WORKER_SECONDS)
    retried, failed = [], []
    for job in stalled:
        try:
            await manager.retry_job(job)
            retried.append(job.id)
        except ConnectorException as error:
            logger.warning("stalled job %s cannot wait again (%s): marked failed", job.id, error)
            await manager.finish_job(job, status=Status.FAILED, delete_job=False)
            failed.append(job.id)
    return {"retried": retried, "failed": failed}


@app.periodic(cron="15 4 * * *")
@app.task(queue="maintenance", queueing_lock="prune-succeeded-jobs", pass_context=True)
async def prune_succeeded_jobs(context, timestamp):
    """Delete jobs that succeeded more than a week ago, with their events and outcomes."""
    await context.app.job_manager.delete_old_jobs(nb_hours=int(KEEP_SUCCEEDED.total_seconds() // 3600))
    cutoff = timezone.now() - KEEP_SUCCEEDED
    await sync_to_async(JobOutcome.objects.filter(finished_at__lt=cutoff, error="").delete)()
