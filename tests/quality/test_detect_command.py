from io import StringIO

import pytest
from django.core.management import CommandError, call_command

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
    assert "1 contradiction, 0 duplicate, 1 outdated, 0 low_confidence; 2 new" in out
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
