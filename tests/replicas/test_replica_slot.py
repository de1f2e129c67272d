"""The embedded replica streams through a replication slot, so the server keeps the WAL a stopped
replica has yet to replay; a replica whose slot is gone is copied again."""

import pytest
from django.db import connection

from memsite import embedded_db
from tests.factories import MemoryFactory
from tests.replicas.conftest import ALIAS, caught_up, embedded, on_replica

pytestmark = pytest.mark.django_db(transaction=True, databases=["default", ALIAS])


def slot():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT active, wal_status FROM pg_replication_slots WHERE slot_name = %s",
            [embedded_db.REPLICA_SLOT],
        )
        return cursor.fetchone()


def stored_on_replica(content):
    return on_replica(f"SELECT count(*) FROM memories_memory WHERE content = '{content}'")


def test_the_replica_streams_through_its_slot(replica):
    assert slot() == (True, "reserved")


def test_a_stopped_replica_catches_up_on_what_the_server_wrote_meanwhile(replica, alice):
    embedded("stop")
    try:
        MemoryFactory(owner=alice, content="Written while the replica was stopped")
    finally:
        embedded("start")
    caught_up()
    assert stored_on_replica("Written while the replica was stopped") == 1


def test_a_replica_whose_slot_is_gone_is_copied_again(replica, alice):
    marker = embedded_db.REPLICA.data / "copied-before"
    marker.touch()
    embedded("stop")
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_drop_replication_slot(%s)", [embedded_db.REPLICA_SLOT])
        MemoryFactory(owner=alice, content="Written after the slot was dropped")
    finally:
        embedded("start")
    caught_up()
    assert not marker.exists()
    assert stored_on_replica("Written after the slot was dropped") == 1
    assert slot() == (True, "reserved")
