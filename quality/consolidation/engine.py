"""Consolidation runs: six set-based phases, one run at a time, each recorded in ConsolidationRun.

A real run commits each phase on its own, so interrupting it leaves whole phases done. A dry run
does exactly the same work phase by phase, each inside a transaction that is rolled back, so its
counts are what each phase would change given the data as it is now (a later phase does not see
what an earlier one would have changed). Keeping each phase short-lived also lets PostgreSQL reuse
the space of the row versions a phase leaves behind, which keeps the next phase's updates in place.
The run record is written as the run goes, on a connection of its own, so a dashboard can poll
the current phase even when the run itself is inside a caller's transaction.
"""

import json
import logging
import time
from contextlib import contextmanager

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connection, connections, transaction
from django.utils import timezone

from memsite.db import retry_on_conflict
from quality import metrics
from quality.consolidation.boost import boost_phase
from quality.consolidation.discovery import discovery_phase
from quality.consolidation.lifecycle import cleanup_phase, relevance_phase, retention_phase
from quality.models import ConsolidationRun, Trigger

logger = logging.getLogger("quality.consolidation")

# pg_try_advisory_lock key shared by every process: "memsite" + 1 as a signed 64-bit integer.
LOCK_KEY = int.from_bytes(b"memsite\x01", "big", signed=True)
QUEUE_LOCK_KEY = int.from_bytes(b"memsite\x02", "big", signed=True)
BUSY_MESSAGE = "A consolidation run is already in progress"
# Memory for the phases' sorts and hashes (connection counts aggregate every association twice);
# no JIT: compiling the phases' wide expressions costs more than it saves.
PHASE_SETTINGS = ["SET LOCAL work_mem = '128MB'", "SET LOCAL jit = off"]


class ConsolidationBusy(Exception):
    """Another consolidation run holds the lock."""


# The settings an evaluation depends on; when one differs from the last real run's, every memory
# is evaluated again.
QUALITY_PARAMETERS = ["quality_weights", "quality_max_age_days", "quality_timeliness_decay"]


def _quality_settings_unchanged(run):
    last = (
        ConsolidationRun.objects.filter(
            dry_run=False, status=ConsolidationRun.Status.SUCCEEDED, phases__has_key="evaluate"
        )
        .exclude(pk=run.pk)
        .order_by("-started_at")
        .first()
    )
    return last is not None and all(
        last.parameters.get(name) == run.parameters[name] for name in QUALITY_PARAMETERS
    )


def evaluate_phase(run):
    """Phase 1: re-evaluate the live memories whose quality moves with time (metrics.MOVING), or
    every live memory on the first real run and when the quality settings changed since the last."""
    moving_only = _quality_settings_unchanged(run)
    with transaction.atomic():
        evaluated = metrics.evaluate_memories(None, Trigger.CONSOLIDATION, moving_only=moving_only)
    return {"evaluated": evaluated, "scope": "moving" if moving_only else "all"}


PHASES = [
    ("evaluate", "Re-evaluate quality", evaluate_phase),
    ("discover", "Association discovery", lambda run: discovery_phase(run.dry_run)),
    ("boost", "Association quality boost", lambda run: boost_phase(run.pk, run.dry_run)),
    ("relevance", "Relevance", lambda run: relevance_phase(run.pk)),
    ("retention", "Quality-based retention", lambda run: retention_phase(run.pk)),
    ("cleanup", "Auto-cleanup and snapshot", lambda run: cleanup_phase(run.pk)),
]
PHASE_LABELS = {name: label for name, label, _ in PHASES}


def current_parameters():
    """The settings a run works with, kept on its record."""
    return {
        "quality_weights": settings.QUALITY_WEIGHTS,
        "quality_max_age_days": settings.QUALITY_MAX_AGE_DAYS,
        "quality_timeliness_decay": settings.QUALITY_TIMELINESS_DECAY,
        "boost_enabled": settings.BOOST_ENABLED,
        "min_connections_for_boost": settings.BOOST_MIN_CONNECTIONS,
        "quality_boost_factor": settings.BOOST_FACTOR,
        "min_connected_quality": settings.BOOST_MIN_CONNECTED_QUALITY,
        "boost_decay_enabled": settings.BOOST_DECAY_ENABLED,
        "bidirectional_boost_enabled": settings.BOOST_BIDIRECTIONAL_ENABLED,
        "count_enrichment_edges": settings.BOOST_COUNT_ENRICHMENT_EDGES,
        "discovery_enabled": settings.DISCOVERY_ENABLED,
        "discovery_similarity_band": [settings.DISCOVERY_MIN_SIMILARITY, settings.DISCOVERY_MAX_SIMILARITY],
        "discovery_neighbours": settings.DISCOVERY_NEIGHBOURS,
        "discovery_temporal_window_minutes": settings.DISCOVERY_TEMPORAL_WINDOW_MINUTES,
        "discovery_max_per_memory": settings.DISCOVERY_MAX_PER_MEMORY,
        "discovery_max_per_run": settings.DISCOVERY_MAX_PER_RUN,
        "retention_high_days": settings.RETENTION_HIGH_DAYS,
        "retention_medium_days": settings.RETENTION_MEDIUM_DAYS,
        "retention_low_min_days": settings.RETENTION_LOW_MIN_DAYS,
        "retention_low_max_days": settings.RETENTION_LOW_MAX_DAYS,
        "auto_cleanup": settings.QUALITY_AUTO_CLEANUP,
        "cleanup_grace_days": settings.QUALITY_CLEANUP_GRACE_DAYS,
        "min_quality_threshold": settings.QUALITY_MIN_THRESHOLD,
    }


@contextmanager
def exclusive_run():
    """Hold the consolidation advisory lock for the block; ConsolidationBusy when another run has it."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [LOCK_KEY])
        (acquired,) = cursor.fetchone()
    if not acquired:
        raise ConsolidationBusy(BUSY_MESSAGE)
    try:
        yield
    finally:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [LOCK_KEY])
        except DatabaseError:
            logger.warning("could not release the consolidation lock; it ends with the connection")


ABANDONED_MESSAGE = "Interrupted: the process running it ended before it finished"


def _fail_abandoned_runs(keep=None):
    """Mark every run still 'running' as failed; only call while holding the lock.

    The lock is a session lock, so it ends with the process that held it: while it is free (or
    held by the caller) no run can be in progress, and a run recorded as running was abandoned
    (its process was killed, or its server lost power). Its committed phases stay applied.
    `keep` is the run the caller's job is running again (its job was retried): it is not failed.
    """
    abandoned = ConsolidationRun.objects.filter(status=ConsolidationRun.Status.RUNNING).exclude(pk=keep)
    return abandoned.update(
        status=ConsolidationRun.Status.FAILED, error=ABANDONED_MESSAGE, finished_at=timezone.now()
    )


def recover_abandoned_runs():
    """Fail the runs abandoned by a dead process, unless a run is in progress; answer how many."""
    try:
        with exclusive_run():
            return _fail_abandoned_runs()
    except ConsolidationBusy:
        return 0


class _RunProgress:
    """Writes a run's phase and counts on a second connection, committed at once."""

    def __init__(self, run):
        self.run = run
        self.connection = None

    def save(self):
        if self.connection is None:
            self.connection = connections.create_connection(DEFAULT_DB_ALIAS)
        with self.connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {ConsolidationRun._meta.db_table} SET phase = %s, phases = %s::jsonb WHERE id = %s",
                [self.run.phase, json.dumps(self.run.phases), self.run.pk],
            )

    def close(self):
        if self.connection is not None:
            self.connection.close()


@retry_on_conflict
def _run_phase(run, phase):
    """One phase in one transaction (rolled back in a dry run). A phase that loses a deadlock to a
    concurrent write (enrichment, recall's access update) is run again: it is idempotent."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            for statement in PHASE_SETTINGS:
                cursor.execute(statement)
        counts = phase(run)
        if run.dry_run:
            transaction.set_rollback(True)
    return counts


def _run_phases(run, progress, on_phase):
    for index, (name, label, phase) in enumerate(PHASES):
        run.phase = name
        progress.save()
        if on_phase is not None:
            on_phase(run, index, name, label)
        started = time.perf_counter()
        counts = _run_phase(run, phase)
        run.phases[name] = {**counts, "duration_ms": round((time.perf_counter() - started) * 1000)}
        logger.debug("consolidation run %s: %s %s", run.pk, name, json.dumps(run.phases[name]))
    run.phase = "done"
    progress.save()


def _is_running():
    try:
        with exclusive_run():
            return False
    except ConsolidationBusy:
        return True


def queue_consolidation(dry_run=True, started_by=None):
    """Record a queued run and queue its job, in one transaction; answers (run, job id).

    Raises ConsolidationBusy when a run is already queued or running.
    """
    from procrastinate.exceptions import AlreadyEnqueued

    from quality.tasks import consolidate

    try:
        with transaction.atomic():
            # Requests queue one at a time: of simultaneous requests one wins, the rest see its run.
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [QUEUE_LOCK_KEY])
            waiting = ConsolidationRun.objects.filter(status=ConsolidationRun.Status.QUEUED).exists()
            if waiting or _is_running():
                raise ConsolidationBusy(BUSY_MESSAGE)
            run = ConsolidationRun.objects.create(
                status=ConsolidationRun.Status.QUEUED,
                dry_run=dry_run,
                started_by=started_by,
                parameters=current_parameters(),
            )
            job_id = consolidate.defer(run_id=run.pk)
    except AlreadyEnqueued:
        raise ConsolidationBusy(BUSY_MESSAGE) from None
    return run, job_id


def _start(run_id, dry_run, started_by):
    """The queued run `run_id` (its job runs it now), or a new run."""
    if run_id is None:
        return ConsolidationRun.objects.create(
            dry_run=dry_run, started_by=started_by, parameters=current_parameters(), phase=PHASES[0][0]
        )
    run = ConsolidationRun.objects.get(pk=run_id)
    if run.status not in (ConsolidationRun.Status.QUEUED, ConsolidationRun.Status.RUNNING):
        return run  # recorded as finished (failed when interrupted): that record stays the truth
    run.status, run.started_at, run.finished_at = ConsolidationRun.Status.RUNNING, timezone.now(), None
    run.phase, run.phases, run.error = PHASES[0][0], {}, ""
    run.parameters = current_parameters()
    run.save(update_fields=["status", "started_at", "finished_at", "phase", "phases", "error", "parameters"])
    return run


def run_consolidation(dry_run=True, started_by=None, on_phase=None, run_id=None):
    """Run the phases over every live memory and return the finished ConsolidationRun.

    `dry_run` computes and records what would change and changes nothing. Raises
    ConsolidationBusy when another run is in progress. `on_phase(run, index, name, label)` is
    called as each phase starts (progress display). `run_id` runs a queued run (its own
    `dry_run` and `started_by` apply); a run again after its worker died starts over.
    """
    with exclusive_run():
        _fail_abandoned_runs(keep=run_id)
        run = _start(run_id, dry_run, started_by)
        if run.finished_at is not None:
            return run
        progress = _RunProgress(run)
        try:
            _run_phases(run, progress, on_phase)
        except Exception as error:
            run.status = ConsolidationRun.Status.FAILED
            run.error = f"{type(error).__name__}: {error}"[:2000]
            run.finished_at = timezone.now()
            try:
                run.save(update_fields=["status", "error", "finished_at", "phase", "phases"])
            except DatabaseError:
                logger.exception("could not record the failure of consolidation run %s", run.pk)
            raise
        finally:
            progress.close()
        run.status = ConsolidationRun.Status.SUCCEEDED
        run.finished_at = timezone.now()
        run.save(update_fields=["status", "finished_at", "phase", "phases"])
    logger.info(
        "consolidation %s #%s finished: %s",
        "dry run" if run.dry_run else "run",
        run.pk,
        json.dumps(run.phases),
    )
    return run
