"""The backup recipe of docs/deploy.md, run on the embedded server: pg_dump -Fc, pg_restore into
a fresh database, `manage.py graph_after_restore`, then `manage.py graph_check`."""

import os
import subprocess
import sys

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from graph import age
from memsite import embedded_db
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db(transaction=True)
TARGET = "memsite_restore_check"
DUMP = "restore-check.dump"
COUNTS = "SELECT (SELECT count(*) FROM memories_memory), (SELECT count(*) FROM graph_association)"


def client_program(name, *args):
    """One of the embedded server's client programs, as its postgres user."""
    result = embedded_db.as_postgres(
        f"{embedded_db.BIN}/{name}",
        "-h",
        "127.0.0.1",
        "-p",
        str(embedded_db.PORT),
        "-U",
        "postgres",
        *args,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    return result


def manage(*args):
    url = f"postgres://postgres@127.0.0.1:{embedded_db.PORT}/{TARGET}"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "memsite.settings", "DATABASE_URL": url}
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=settings.BASE_DIR, env=env, capture_output=True, text=True
    )


@pytest.fixture
def restored_database():
    if os.environ.get("DATABASE_URL"):
        pytest.skip("the round trip uses the embedded server's pg_dump and pg_restore")
    yield TARGET
    client_program("psql", "-d", "postgres", "-c", f"DROP DATABASE IF EXISTS {TARGET} WITH (FORCE)")
    (embedded_db.DATA_HOST / DUMP).unlink(missing_ok=True)


def test_a_dump_restored_into_a_fresh_database_keeps_memories_associations_and_graph(
    restored_database, alice, alice_client
):
    memories = [str(MemoryFactory(owner=alice, content=f"Backup check number {n}").pk) for n in range(4)]
    for source, target in [(0, 1), (1, 2), (2, 3)]:
        link = {"memory1_id": memories[source], "memory2_id": memories[target], "type": "LEADS_TO"}
        linked = alice_client.post("/associate", link, format="json")
        assert linked.status_code == 201, linked.json()
    with connection.cursor() as cursor:
        cursor.execute(COUNTS)
        counts = cursor.fetchone()
    graph = age.cypher_counts()
    assert graph == (4, 3)

    dump = f"{embedded_db.MOUNT_IN_ROOT}/{DUMP}"
    client_program("pg_dump", "-Fc", "-d", connection.settings_dict["NAME"], "-f", dump)
    client_program("psql", "-d", "postgres", "-c", f"CREATE DATABASE {TARGET}")
    client_program("pg_restore", "-d", TARGET, dump)

    after_restore = manage("graph_after_restore")
    assert after_restore.returncode == 0, after_restore.stderr
    assert f"relinked to this database; Cypher reads {graph[0]} memories, {graph[1]} edges" in (
        after_restore.stdout
    )
    check = manage("graph_check")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "Graph and tables agree." in check.stdout
    url = f"postgresql://postgres@127.0.0.1:{embedded_db.PORT}/{TARGET}"
    with psycopg.connect(url) as restored:
        assert restored.execute(COUNTS).fetchone() == counts
    again = manage("graph_after_restore")
    assert "already linked to this database" in again.stdout
