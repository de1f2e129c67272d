"""Background jobs of the queue itself: recovery of jobs whose worker died, pruning of old jobs."""

from datetime import timedelta

from asgiref.sync import sync_to_async
from django.utils import timezone
from procrastinate.contrib.django import app

from memsite.jobs import STALLED_WORKER_SECONDS
from memsite.models import JobOutcome

# Succeeded jobs (and their outcomes) are kept this long; failed ones stay until retried or pruned.
KEEP_SUCCEEDED = timedelta(days=7)


@app.periodic(cron="* * * * *")
@app.task(queue="maintenance", queueing_lock="retry-stalled-jobs", pass_context=True)
async def retry_stalled_jobs(context, timestamp):
    """Put back in the queue the running jobs of workers that stopped sending heartbeats."""
    manager = context.app.job_manager
    stalled = await manager.get_stalled_jobs(seconds_since_heartbeat=STALLED_WORKER_SECONDS)
    for job in stalled:
        await manager.retry_job(job)
    return {"retried": [job.id for job in stalled]}


@app.periodic(cron="15 4 * * *")
@app.task(queue="maintenance", queueing_lock="prune-succeeded-jobs", pass_context=True)
async def prune_succeeded_jobs(context, timestamp):
    """Delete jobs that succeeded more than a week ago, with their events and outcomes."""
    await context.app.job_manager.delete_old_jobs(nb_hours=int(KEEP_SUCCEEDED.total_seconds() // 3600))
    cutoff = timezone.now() - KEEP_SUCCEEDED
    await sync_to_async(JobOutcome.objects.filter(finished_at__lt=cutoff, error="").delete)()
