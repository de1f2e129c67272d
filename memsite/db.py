"""The retry every write service runs under.

A deadlock or a serialization failure means a concurrent transaction won a race (it is not an
outage): the write is retried a bounded number of times and, if it keeps losing, answers 409. A
row deleted by a concurrent request while a write was referencing it (a foreign-key violation)
answers 404, like a memory that was never there.
"""

import functools
import random
import time

from django.db import IntegrityError, OperationalError, connection

from memsite.api.exceptions import CONFLICT, ApiError, is_conflict, sqlstate

FOREIGN_KEY_VIOLATION = "23503"
WRITE_ATTEMPTS = 4
RETRY_PAUSE_SECONDS = (0.01, 0.05)
GONE_MESSAGE = "Memory not found"


def retry_on_conflict(write):
    """Run a write service, again on a deadlock or serialization failure (bounded), then 409.

    Inside a caller's transaction there is nothing to retry (the caller's work is lost with it),
    so the conflict goes up as a 409 at once. A foreign-key violation, the trace of a row deleted
    concurrently, becomes the 404 of a missing memory.
    """

    @functools.wraps(write)
    def wrapper(*args, **kwargs):
        attempts = 1 if connection.in_atomic_block else WRITE_ATTEMPTS
        for attempt in range(1, attempts + 1):
            try:
                return write(*args, **kwargs)
            except OperationalError as error:
                if not is_conflict(error):
                    raise
                if attempt == attempts:
                    raise ApiError(CONFLICT, 409) from error
                time.sleep(random.uniform(*RETRY_PAUSE_SECONDS) * attempt)
            except IntegrityError as error:
                if sqlstate(error) == FOREIGN_KEY_VIOLATION:
                    raise ApiError(GONE_MESSAGE, 404) from error
                raise
        raise AssertionError("unreachable")

    return wrapper
