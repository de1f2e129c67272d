"""Read replicas: which database each read goes to.

Every request (and MCP tool call) runs in a scope (`serving`). A read-only scope — a GET, or a
view or tool that only reads — sends the reads of memories, graph and quality data to a healthy
replica; everything else goes to the primary:
- writes, always, and every read of a request that writes (POST, PATCH, DELETE);
- reads inside a transaction on the primary (they belong to a write);
- reads of a user who wrote in the last MEMSITE_REPLICA_PIN_SECONDS (read-your-writes): the pin
  is a row per user on the primary (`ReplicaPin`), so every web process and machine sees it;
- reads when no replica is usable: down, not a standby, or more than
  MEMSITE_REPLICA_MAX_LAG_SECONDS behind. A replica's state is measured at most every
  MEMSITE_REPLICA_CHECK_SECONDS per process (`replica_status`), and /health reports it.
Accounts, tokens, sessions and the job queue are always read on the primary.

ORM reads follow `ReplicaRouter`; raw SQL reads take `read_connection()`. Both ask the same
`Scope.read_alias()`, which chooses once per scope.
"""

import contextvars
import logging
import random
import time
from contextlib import contextmanager

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections

logger = logging.getLogger(__name__)

REPLICATED_APPS = {"memories", "graph", "quality"}

PIN_SQL = """
INSERT INTO memsite_replicapin (user_id, until) VALUES (%s, now() + make_interval(secs => %s))
ON CONFLICT (user_id) DO UPDATE SET until = EXCLUDED.until
"""
PINNED_SQL = "SELECT EXISTS (SELECT 1 FROM memsite_replicapin WHERE user_id = %s AND until > now())"
# Caught up when the replica has replayed the primary's WAL position read just before; else the
# lag is the age of the last transaction it replayed.
LAG_SQL = """
SELECT pg_is_in_recovery(), COALESCE(pg_last_wal_replay_lsn() >= %s::pg_lsn, false),
       extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float
"""

_scope = contextvars.ContextVar("memsite_replica_scope", default=None)
_checked = {}


class Scope:
    """One request or tool call: may its reads use a replica, which one, and did it write."""

    def __init__(self, user, reads_only):
        self.user = user
        self.reads_only = reads_only
        self.wrote = False
        self.succeeded = True
        self._alias = None

    def read_alias(self):
        if not self.reads_only or self.wrote or connections[DEFAULT_DB_ALIAS].in_atomic_block:
            return DEFAULT_DB_ALIAS
        if self._alias is None:
            self._alias = _choose(self.user())
        return self._alias


@contextmanager
def serving(user, reads_only):
    """Run a request or tool call for `user` (a callable: DRF knows the user only later).

    A scope that wrote, or that may have written (not read-only) and succeeded, pins its user
    to the primary afterwards.
    """
    scope = Scope(user, reads_only)
    token = _scope.set(scope)
    try:
        yield scope
    finally:
        _scope.reset(token)
    if scope.wrote or (not scope.reads_only and scope.succeeded):
        pin(scope.user())


def current_alias():
    """The database the current scope reads from (the primary outside any scope)."""
    scope = _scope.get()
    return scope.read_alias() if scope else DEFAULT_DB_ALIAS


def read_connection():
    """The connection for a raw SQL read in the current scope: a replica's or the primary's."""
    return connections[current_alias()]


class ReplicaRouter:
    """DATABASE_ROUTERS: replicated apps read where the scope says; every write is the primary's."""

    def db_for_read(self, model, **hints):
        scope = _scope.get()
        if scope is None or model._meta.app_label not in REPLICATED_APPS:
            return None
        return scope.read_alias()

    def db_for_write(self, model, **hints):
        scope = _scope.get()
        if scope is not None and model._meta.app_label in REPLICATED_APPS:
            scope.wrote = True
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1, obj2, **hints):
        return True

    def allow_migrate(self, db, app_label, **hints):
        return db == DEFAULT_DB_ALIAS


def _user_id(user):
    return user.pk if user is not None and user.is_authenticated else None


def pin(user):
    """Send `user`'s reads to the primary for MEMSITE_REPLICA_PIN_SECONDS (no-op without replicas)."""
    user_id = _user_id(user)
    if not settings.REPLICA_ALIASES or user_id is None:
        return
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute(PIN_SQL, [user_id, settings.REPLICA_PIN_SECONDS])


def is_pinned(user):
    user_id = _user_id(user)
    if user_id is None:
        return False
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute(PINNED_SQL, [user_id])
        return cursor.fetchone()[0]


def _choose(user):
    """A usable replica at random, else the primary."""
    usable = [alias for alias in settings.REPLICA_ALIASES if replica_status(alias)["state"] == "ok"]
    if not usable or is_pinned(user):
        return DEFAULT_DB_ALIAS
    random.shuffle(usable)
    for alias in usable:
        try:
            connections[alias].close_if_health_check_failed()
            connections[alias].ensure_connection()
        except DatabaseError:
            connections[alias].close()
            _checked[alias] = (time.monotonic(), _down(alias))
            continue
        return alias
    return DEFAULT_DB_ALIAS


def _down(alias):
    logger.warning("replica %s cannot be reached; reading from the primary", alias)
    return {"alias": alias, "state": "down", "lag_seconds": None}


def _measure(alias):
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_lsn()::text")
        (position,) = cursor.fetchone()
    try:
        with connections[alias].cursor() as cursor:
            cursor.execute(LAG_SQL, [position])
            standby, caught_up, age = cursor.fetchone()
    except DatabaseError:
        connections[alias].close()  # the next check connects afresh
        return _down(alias)
    if not standby:
        return {"alias": alias, "state": "not_standby", "lag_seconds": None}
    lag = 0.0 if caught_up else age
    usable = lag is not None and lag <= settings.REPLICA_MAX_LAG_SECONDS
    rounded = None if lag is None else round(lag, 3)
    return {"alias": alias, "state": "ok" if usable else "lagging", "lag_seconds": rounded}


def replica_status(alias):
    """{"alias", "state": ok | lagging | not_standby | down, "lag_seconds"}, measured at most
    every MEMSITE_REPLICA_CHECK_SECONDS in this process."""
    now = time.monotonic()
    checked = _checked.get(alias)
    if checked is None or now - checked[0] >= settings.REPLICA_CHECK_SECONDS:
        checked = (now, _measure(alias))
        _checked[alias] = checked
    return checked[1]
