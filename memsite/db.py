"""How a database error is read (an outage, a lost race), and the retry every write runs under.

A deadlock or a serialization failure means a concurrent transaction won a race (it is not an
outage): the write is retried a bounded number of times and, if it keeps losing, answers 409. A
row deleted by a concurrent request while a write was referencing it (a foreign-key violation)
answers 404, like a memory that was never there.
"""

import functools
import random
import time

from django.db import IntegrityError, InterfaceError, OperationalError, connection

from memsite.errors import Conflict, NotFound

CONFLICT = "Conflicting concurrent change; try again"
# SQLSTATEs (PostgreSQL appendix A) that mean no usable connection: connection exceptions,
# insufficient resources (too many connections), and a server shutting down or starting up.
UNREACHABLE_CLASSES = ("08", "53")
SHUTDOWN_CODES = {"57P01", "57P02", "57P03"}
# A deadlock or a serialization failure: the transaction lost a race.
CONFLICT_CODES = {"40001", "40P01"}


def sqlstate(error):
    """The SQLSTATE of a Django database error (None when PostgreSQL sent none)."""
    return getattr(error.__cause__, "sqlstate", None)


def is_unreachable(error):
    """Whether a database error means PostgreSQL cannot be reached: the only cause of a 503.

    An OperationalError without a SQLSTATE came from the client side (refused or lost socket).
    """
    if isinstance(error, InterfaceError):
        return True
    if not isinstance(error, OperationalError):
        return False
    code = sqlstate(error)
    return code is None or code.startswith(UNREACHABLE_CLASSES) or code in SHUTDOWN_CODES


def is_conflict(error):
    return isinstance(error, OperationalError) and sqlstate(error) in CONFLICT_CODES


FOREIGN_KEY_VIOLATION = "23503"
# Raised by the database when a supersession would close a cycle (graph migration 0007).
SUPERSESSION_CYCLE = "memory_supersession_acyclic"
WRITE_ATTEMPTS = 4
RETRY_PAUSE_SECONDS = (0.01, 0.05)
GONE_MESSAGE = "Memory not found"


def retry_on_conflict(write):
    """Run a write service, again on a deadlock or serialization failure (bounded), then 409.

    Inside a caller's transaction there is nothing to retry (the caller's work is lost with it),
    so the conflict goes up as a 409 at once. A foreign-key violation, the trace of a row deleted
    concurrently, becomes the 404 of a missing memory; a supersession cycle a 409 saying so.
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
                    raise Conflict(CONFLICT) from error
                time.sleep(random.uniform(*RETRY_PAUSE_SECONDS) * attempt)
            except IntegrityError as error:
                if sqlstate(error) == FOREIGN_KEY_VIOLATION:
                    raise NotFound(GONE_MESSAGE) from error
                diagnostics = getattr(error.__cause__, "diag", None)
                if getattr(diagnostics, "constraint_name", None) == SUPERSESSION_CYCLE:
                    raise Conflict(diagnostics.message_primary) from error
                raise
        raise AssertionError("unreachable")

    return wrapper
