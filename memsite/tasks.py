"""Background jobs of the queue itself: recovery of jobs whose worker died."""

from procrastinate.contrib.django import app

from memsite.jobs import STALLED_WORKER_SECONDS


@app.periodic(cron="* * * * *")
@app.task(queue="maintenance", queueing_lock="retry-stalled-jobs", pass_context=True)
async def retry_stalled_jobs(context, timestamp):
    """Put back in the queue the running jobs of workers that stopped sending heartbeats."""
    manager = context.app.job_manager
    stalled = await manager.get_stalled_jobs(seconds_since_heartbeat=STALLED_WORKER_SECONDS)
    for job in stalled:
        await manager.retry_job(job)
    return {"retried": [job.id for job in stalled]}
