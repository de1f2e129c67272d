"""Background jobs of the quality app: consolidation, inconsistency detection, re-evaluation.

Consolidation and detection each share one Procrastinate `lock`, so however many workers run,
one job of each kind runs at a time; consolidation also keeps its advisory lock, which the
`consolidate` command takes too.
"""

import logging

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from procrastinate.contrib.django import app

from memsite.jobs import TRANSIENT_RETRY
from quality import supersession
from quality.consolidation import ConsolidationBusy, run_consolidation
from quality.detection import detect_inconsistencies as detect
from quality.every_owner import detect_for_every_owner
from quality.metrics import evaluate_memories
from quality.models import ConsolidationRun, Trigger

logger = logging.getLogger(__name__)


def _owner(owner_id):
    return None if owner_id is None else get_user_model().objects.get(pk=owner_id)


def _summary(run):
    return {"run_id": run.pk, "status": run.status, "dry_run": run.dry_run}


@app.task(queue="maintenance", lock="consolidation", queueing_lock="consolidation", retry=TRANSIENT_RETRY)
def consolidate(run_id):
    """Run the queued consolidation run `run_id` (POST /api/consolidation/run, the dashboard)."""
    try:
        return _summary(run_consolidation(run_id=run_id))
    except ConsolidationBusy as busy:
        ConsolidationRun.objects.filter(pk=run_id, status=ConsolidationRun.Status.QUEUED).update(
            status=ConsolidationRun.Status.FAILED, error=str(busy), finished_at=timezone.now()
        )
        return {"run_id": run_id, "status": "failed", "error": str(busy)}


@app.task(queue="maintenance", lock="consolidation", queueing_lock="scheduled-consolidation")
def scheduled_consolidation(timestamp):
    """The nightly real run (MEMSITE_CONSOLIDATION_CRON); skipped while another run holds the lock."""
    try:
        return _summary(run_consolidation(dry_run=False))
    except ConsolidationBusy as busy:
        logger.info("scheduled consolidation skipped: %s", busy)
        return {"skipped": str(busy)}


@app.task(queue="maintenance", lock="detection", retry=TRANSIENT_RETRY)
def detect_inconsistencies(owner_id=None):
    """Detect inconsistencies of one owner's memories, or of everyone's (owner by owner) when None."""
    if owner_id is None:
        return _every_owner()
    return detect(_owner(owner_id)).as_dict()


@app.task(queue="maintenance", lock="detection", queueing_lock="scheduled-detection")
def scheduled_detection(timestamp):
    """The nightly detection over every owner (MEMSITE_DETECTION_CRON), owner by owner."""
    return _every_owner()


def _every_owner():
    result, failed = detect_for_every_owner()
    return {**result.as_dict(), "failed": failed}


@app.task(queue="enrichment", retry=TRANSIENT_RETRY, name="quality.propose_supersessions")
def propose_supersessions(memory_ids):
    """Propose (and apply the confident) supersessions for newly stored, enriched memories."""
    return supersession.propose(memory_ids)


@app.task(queue="maintenance", retry=TRANSIENT_RETRY)
def evaluate_quality(owner_id=None):
    """Re-evaluate the quality of one owner's live memories, or of every live memory."""
    with transaction.atomic():
        return {"evaluated": evaluate_memories(None, Trigger.EVALUATE, owner=_owner(owner_id))}


if settings.CONSOLIDATION_CRON:
    app.periodic(cron=settings.CONSOLIDATION_CRON)(scheduled_consolidation)
if settings.DETECTION_CRON:
    app.periodic(cron=settings.DETECTION_CRON)(scheduled_detection)
