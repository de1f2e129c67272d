"""A real streaming replica of the test database: the embedded server's hot standby.

The session starts it with `python -m memsite.embedded_db start --replica` (a pg_basebackup of
the running server, once; later sessions reuse the copy), stops it at the end unless it was
running before (a standby left running replays every later write: benchmarks run slower beside
it), and adds it as the database alias `replica`, a test mirror of default: it is never created
nor flushed, it receives the test database by streaming replication. Tests that use it commit
(transaction=True), so what they store reaches it. When another program listens on the replica's
port, the session starts it on a port the system picks.
"""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import DEFAULT_DB_ALIAS, connections

from memsite import embedded_db

ROOT = Path(__file__).resolve().parents[2]
ALIAS = "replica"
CATCH_UP_SECONDS = 30


def embedded(*args):
    result = subprocess.run(
        [sys.executable, "-m", "memsite.embedded_db", *args, "--replica"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def replica_port():
    """MEMSITE_PG_REPLICA_PORT's port (or the default) if free, else one the system picks."""
    if not embedded_db.port_taken(embedded_db.REPLICA_PORT):
        return embedded_db.REPLICA_PORT
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def primary_position():
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_lsn()::text")
        return cursor.fetchone()[0]


def caught_up():
    """Wait until the replica has replayed everything committed on the primary so far."""
    position = primary_position()
    deadline = time.monotonic() + CATCH_UP_SECONDS
    while time.monotonic() < deadline:
        try:
            with connections[ALIAS].cursor() as cursor:
                cursor.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", [position])
                if cursor.fetchone()[0]:
                    return
        except Exception:
            connections[ALIAS].close()
        time.sleep(0.05)
    raise AssertionError(f"the replica did not replay up to {position} in {CATCH_UP_SECONDS} s")


def on_replica(sql):
    with connections[ALIAS].cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchone()[0]


@pytest.fixture(scope="session", autouse=True)
def streaming_replica(django_db_setup, django_db_blocker):
    """Start the replica and add its alias (before pytest-django checks the test's databases)."""
    if os.environ.get("DATABASE_URL"):
        pytest.skip("the replica tests run against the embedded server (DATABASE_URL is set)")
    was_running = embedded_db.REPLICA.running()
    port = embedded_db.REPLICA_PORT if was_running else replica_port()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MEMSITE_PG_REPLICA_PORT", str(port))
        embedded("start")
        primary = connections[DEFAULT_DB_ALIAS].settings_dict
        connections.settings[ALIAS] = {
            **primary,
            "HOST": "127.0.0.1",
            "PORT": str(port),
            "CONN_MAX_AGE": 0,
            "TEST": {**primary["TEST"], "MIRROR": DEFAULT_DB_ALIAS},
        }
        with django_db_blocker.unblock():
            caught_up()
        yield ALIAS
        connections[ALIAS].close()
        if not was_running:
            embedded("stop")


@pytest.fixture
def replica(settings, streaming_replica):
    """Reads may go to the replica, however far behind (a test pauses its replay to tell its
    answers from the primary's); its state is measured at every choice; writes pin nobody unless
    a test says so. Replay is resumed afterwards."""
    settings.REPLICA_ALIASES = [ALIAS]
    settings.REPLICA_CHECK_SECONDS = 0
    settings.REPLICA_MAX_LAG_SECONDS = 3600
    settings.REPLICA_PIN_SECONDS = 0
    caught_up()
    yield ALIAS
    if on_replica("SELECT pg_is_wal_replay_paused()"):
        on_replica("SELECT pg_wal_replay_resume()")


@pytest.fixture
def replay_paused(replica):
    """The replica stops applying the primary's changes: what it answers is visibly its own."""
    on_replica("SELECT pg_wal_replay_pause()")
    return replica


@pytest.fixture
def curator(client, staff, settings):
    """A staff member signed in to the dashboard (static files by their plain names)."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    client.force_login(staff)
    return client
