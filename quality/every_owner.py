"""Detection over every owner, one owner at a time: one owner's failure does not stop the rest.

The nightly run (MEMSITE_DETECTION_CRON), the all-owner job and `manage.py detect_inconsistencies`
without --owner run detection for each owner with memories in a transaction of its own. An
owner whose run fails (after one more attempt) is recorded in the answer's `failed` with the
error, and the other owners' findings are kept.
"""

import logging

from django.db import DatabaseError, connection

from quality.detection import DetectionResult, detect_inconsistencies

logger = logging.getLogger(__name__)
ATTEMPTS = 2
OWNERS_SQL = "SELECT DISTINCT owner_id FROM memories_memory ORDER BY owner_id"


def _add(total, result):
    total.scanned += result.scanned
    for name, count in result.found.items():
        total.found[name] = total.found.get(name, 0) + count
    total.created += result.created
    total.no_longer_detected += result.no_longer_detected
    total.reevaluated += result.reevaluated
    total.read += result.read
    total.applied += result.applied


def detect_for_every_owner(changed_since=None, progress=None):
    """The summed DetectionResult of every owner's run, and the owners whose run failed.

    `progress(done, total)` is called after each owner's run, counting owners."""
    with connection.cursor() as cursor:
        cursor.execute(OWNERS_SQL)
        owners = [owner_id for (owner_id,) in cursor.fetchall()]
    total, failed = DetectionResult(), []
    for done, owner_id in enumerate(owners, start=1):
        for attempt in range(1, ATTEMPTS + 1):
            try:
                _add(total, detect_inconsistencies(owner_id, changed_since=changed_since))
                break
            except DatabaseError as error:
                logger.warning("detection for owner %s failed (attempt %s): %s", owner_id, attempt, error)
                if attempt == ATTEMPTS:
                    failed.append({"owner_id": owner_id, "error": f"{type(error).__name__}: {error}"[:500]})
        if progress:
            progress(done, len(owners))
    return total, failed
