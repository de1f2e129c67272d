"""Background jobs of the graph app: enrichment of stored memories and its sweep."""

from django.conf import settings
from procrastinate.contrib.django import app

from graph import enrichment
from memories import planner
from memsite import jobs
from memsite.jobs import TRANSIENT_RETRY


@app.task(queue="enrichment", retry=TRANSIENT_RETRY, pass_context=True)
def enrich_memories(context, memory_ids):
    """Enrich one stored batch (and other pending memories); the last attempt records a transient
    error as failed. Queues an ANALYZE when an owner of the batch outgrew the planner's statistics."""
    last_attempt = context.job.attempts + 1 >= TRANSIENT_RETRY.max_attempts
    result = enrichment.enrich(memory_ids, retry_transient=not last_attempt, claim=True)
    if planner.outgrown(memory_ids):
        planner.queue_analyze()
    return result


@app.task(queue="maintenance", queueing_lock="enrichment-sweep", retry=TRANSIENT_RETRY)
def sweep_pending_enrichment(timestamp=None):
    """Re-queue memories whose enrichment is still pending (MEMSITE_ENRICHMENT_SWEEP_CRON)."""
    return {"requeued": enrichment.requeue_pending()}


@app.task(queue="maintenance", queueing_lock="entity-retag", retry=TRANSIENT_RETRY)
def retag_entities(after=None):
    """Tag existing memories with the entities they name, one batch per job, each job queueing
    the next (`manage.py graph_retag_entities` queues the first)."""
    result = enrichment.retag(after)
    if result["last"]:
        jobs.defer(retag_entities, after=result["last"])
    return result


@app.task(queue="enrichment", retry=TRANSIENT_RETRY)
def apply_entity_aliases(owner_id, aliases):
    """Re-tag an owner's memories tagged with a first name that became an alias of a full name."""
    return {"memories": enrichment.apply_aliases(owner_id, aliases)}


if settings.ENRICHMENT_SWEEP_CRON:
    app.periodic(cron=settings.ENRICHMENT_SWEEP_CRON)(sweep_pending_enrichment)
