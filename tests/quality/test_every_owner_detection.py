"""The all-owner detection runs owner by owner: one owner's failure or deletes stop nobody else."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from memories.models import Memory
from memories.services import delete_memory
from quality.every_owner import detect_for_every_owner
from quality.models import Inconsistency
from tests.conftest import in_thread
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db(transaction=True)


def duplicates(owner, n=1):
    for i in range(n):
        MemoryFactory(owner=owner, content=f"The invoice {i} was paid on Monday")
        MemoryFactory(owner=owner, content=f"The invoice {i} was paid on Monday", allow_duplicate=True)


def findings_of(owner):
    """The owner's duplicate findings (how the numbered invoices relate to each other is the
    judge's business, not these tests')."""
    return Inconsistency.objects.filter(memory1__owner=owner, type="duplicate").count()


@pytest.fixture
def failing_for(db):
    """A real fault in PostgreSQL: writing a finding about this owner's memories raises."""

    def install(owner):
        with connection.cursor() as cursor:
            cursor.execute(
                f"""
                CREATE FUNCTION pg_temp.refuse() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF (SELECT owner_id FROM memories_memory WHERE id = NEW.memory1_id) = {int(owner.pk)}
                    THEN RAISE EXCEPTION 'disk full for this owner'; END IF;
                    RETURN NEW;
                END $$;
                CREATE TRIGGER refuse_owner BEFORE INSERT ON quality_inconsistency
                FOR EACH ROW EXECUTE FUNCTION pg_temp.refuse();
                """
            )

    yield install
    with connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER IF EXISTS refuse_owner ON quality_inconsistency")


def test_one_owner_s_failure_is_recorded_and_the_other_owners_finish(alice, bob, failing_for):
    duplicates(alice)
    duplicates(bob)
    failing_for(alice)

    result, failed = detect_for_every_owner()

    assert [item["owner_id"] for item in failed] == [alice.pk]
    assert "disk full for this owner" in failed[0]["error"]
    assert findings_of(alice) == 0
    assert findings_of(bob) == 1
    assert result.created == 1


def test_the_command_fails_naming_the_owner_after_the_others_finished(alice, bob, failing_for):
    duplicates(alice)
    duplicates(bob)
    failing_for(bob)

    with pytest.raises(CommandError, match=f"Detection failed for owners {bob.pk}: "):
        call_command("detect_inconsistencies", verbosity=0)

    assert findings_of(alice) == 1


def test_the_nightly_run_racing_one_owner_s_deletes_finishes_every_other_owner(alice, bob):
    duplicates(alice, 40)
    duplicates(bob, 5)
    doomed = list(Memory.objects.filter(owner=alice).values_list("pk", flat=True))

    def delete_all():
        for memory in Memory.objects.filter(pk__in=doomed):
            delete_memory(memory)

    deleter, _ = in_thread(delete_all)
    result, failed = detect_for_every_owner()
    deleter.join()

    assert {item["owner_id"] for item in failed} <= {alice.pk}
    assert findings_of(bob) == 5
    assert not Memory.objects.filter(owner=alice).exists()
