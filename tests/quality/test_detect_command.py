from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from quality.models import Inconsistency
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db


def run(*args):
    out, err = StringIO(), StringIO()
    call_command("detect_inconsistencies", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_the_command_detects_for_every_owner_and_prints_a_summary(alice, bob):
    MemoryFactory(owner=alice, content="The user is online")
    MemoryFactory(owner=alice, content="The user is not online")
    MemoryFactory(owner=bob, content="Bob's old note", days_old=300)
    out, err = run()
    assert out.startswith("Scanned 3 memories in ")
    assert "1 contradiction, 0 duplicate, 1 outdated, 0 low_confidence, 0 superseded; 2 new" in out
    assert "neighbour search" in err
    assert Inconsistency.objects.count() == 2


def test_the_command_can_stay_with_one_owner(alice, bob):
    MemoryFactory(owner=bob, content="Bob's old note", days_old=300)
    out, _ = run("--owner", "alice")
    assert out.startswith("Scanned 0 memories")
    assert not Inconsistency.objects.exists()


def test_the_command_rejects_an_unknown_owner(db):
    with pytest.raises(CommandError, match="No user named 'nobody'"):
        run("--owner", "nobody")


def test_the_command_can_detect_only_what_changed_since_a_time(alice):
    MemoryFactory(owner=alice, content="The user is online", days_old=10)
    MemoryFactory(owner=alice, content="The user is not online")
    since = (timezone.now() - timedelta(days=1)).isoformat()
    out, _ = run("--changed-since", since)
    assert out.startswith("Scanned 1 memories in ")
    assert Inconsistency.objects.filter(type="contradiction").count() == 1


def test_the_command_rejects_a_changed_since_that_is_not_a_time(db):
    with pytest.raises(CommandError, match="Invalid ISO timestamp"):
        run("--changed-since", "yesterday")
    assert not Inconsistency.objects.exists()
