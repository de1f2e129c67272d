import io
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memories.models import Memory

FIXTURE = Path(__file__).parent.parent / "data" / "mem0_get_all.json"


def _import(path):
    out = io.StringIO()
    call_command("import_memories", str(path), owner="alice", format="mem0", stdout=out, verbosity=0)
    return out.getvalue()


@pytest.mark.django_db
def test_mem0s_get_all_imports_with_its_dates_and_its_scopes_as_tags(alice):
    assert _import(FIXTURE) == "Imported 3 records, skipped 0, 1 failed.\n  line 5: 'content' is required\n"

    memories = Memory.objects.filter(owner=alice)
    scoped = memories.get(content="Prefers thrillers over romantic comedies")
    assert scoped.tags == ["agent:movie-assistant", "run:session-42", "entertainment", "preferences"]
    assert scoped.metadata["source"] == "chat"
    assert scoped.metadata["mem0"]["user_id"] == "alice"
    assert scoped.metadata["mem0"]["role"] == "user"
    assert scoped.created_at == datetime(2024, 7, 27, 18, 2, 11, tzinfo=UTC)
    loved = memories.get(content="User loves sci-fi movies")
    assert loved.updated_at == datetime(2024, 8, 2, 15, 12, 40, 120311, tzinfo=UTC)
    plan = memories.get(content="User is planning to watch a movie tonight.")
    assert plan.tags == []
    assert plan.created_at == datetime(2024, 7, 26, 17, 29, 36, 630547, tzinfo=UTC)
    assert plan.metadata["mem0"]["id"] == "892db2ae-06d9-49e5-8b3e-585ef9b85b8e"


@pytest.mark.django_db
def test_importing_mem0s_export_twice_adds_nothing(alice):
    _import(FIXTURE)

    assert _import(FIXTURE).startswith("Imported 0 records, skipped 3, 1 failed.")
    assert Memory.objects.filter(owner=alice).count() == 3


@pytest.mark.django_db
def test_a_file_that_is_not_mem0_json_is_refused(alice, tmp_path):
    path = tmp_path / "memories.json"
    path.write_text('{"memories": 3}')

    with pytest.raises(CommandError, match="not mem0 JSON"):
        _import(path)
