import gzip
import io
import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memories.models import Memory

FIXTURE = Path(__file__).parent.parent / "data" / "mcp_memory_service-12.4.0.db.gz"


@pytest.fixture
def peer_database(tmp_path):
    path = tmp_path / "sqlite_vec.db"
    path.write_bytes(gzip.decompress(FIXTURE.read_bytes()))
    return path


def _peer_created_at(path, content):
    with closing(sqlite3.connect(path)) as connection:
        (epoch,) = connection.execute(
            "SELECT created_at FROM memories WHERE content = ?", [content]
        ).fetchone()
    return datetime.fromtimestamp(epoch, UTC)


def _import(path):
    out = io.StringIO()
    call_command(
        "import_memories", str(path), owner="alice", format="mcp-memory-service", stdout=out, verbosity=0
    )
    return out.getvalue()


@pytest.mark.django_db
def test_the_peer_database_imports_its_live_memories_with_their_dates_and_tags(alice, peer_database):
    assert _import(peer_database) == "Imported 21 records, skipped 0, 0 failed.\n"

    memories = Memory.objects.filter(owner=alice)
    assert memories.count() == 21
    assert not memories.filter(content="Temporary note that will be deleted.").exists()
    decision = memories.get(content="Decided to use PostgreSQL 17 for the billing service.")
    assert decision.tags == ["decision", "database"]
    assert decision.memory_type == "Decision"
    assert decision.metadata["ticket"] == "BIL-12"
    assert decision.metadata["mcp-memory-service"]["content_hash"].startswith("0beae979")
    assert decision.created_at == _peer_created_at(peer_database, decision.content)
    assert decision.source_id == "mcp-memory-service"
    updated = memories.get(content="Alice prefers dark mode in every editor.")
    assert updated.tags == ["preference", "alice", "editor"]
    assert updated.updated_at > updated.created_at
    assert memories.get(content="The coffee machine on floor 3 is broken again.").tags == []


@pytest.mark.django_db
def test_importing_the_peer_database_twice_adds_nothing(alice, peer_database):
    _import(peer_database)

    assert _import(peer_database) == "Imported 0 records, skipped 21, 0 failed.\n"
    assert Memory.objects.filter(owner=alice).count() == 21


@pytest.mark.django_db
def test_a_file_that_is_not_a_peer_database_is_refused(alice, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("not a database")

    with pytest.raises(CommandError, match="not an mcp-memory-service database"):
        _import(path)
