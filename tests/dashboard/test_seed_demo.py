import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from graph.models import Association
from memories.models import Memory
from quality.models import ConsolidationRun, Inconsistency, QualityBoost

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo_user(db):
    return get_user_model().objects.create_user("demo", password="demo", is_staff=True)


def test_seed_demo_builds_a_living_data_set_and_keeps_it_on_a_second_run(demo_user, capsys):
    call_command("seed_demo", memories=80, verbosity=0)
    memories = Memory.objects.filter(owner=demo_user)
    count = memories.count()
    assert count >= 80
    assert memories.filter(quality_evaluated_at__isnull=True).count() == 0
    assert Association.objects.filter(source__owner=demo_user, relation_type="PART_OF").count() >= 5
    assert Inconsistency.objects.filter(type="contradiction").count() >= 5
    assert Inconsistency.objects.filter(type="duplicate").exists()
    assert set(Inconsistency.objects.values_list("status", flat=True)) == {"open", "resolved", "dismissed"}
    assert list(ConsolidationRun.objects.order_by("started_at").values_list("dry_run", "status")) == [
        (True, "succeeded"),
        (False, "succeeded"),
    ]
    assert QualityBoost.objects.filter(kind="applied").exists()

    call_command("seed_demo", memories=80, verbosity=0)
    assert memories.count() == count
    assert "already has" in capsys.readouterr().out


def test_seed_demo_needs_an_existing_user(db):
    with pytest.raises(CommandError, match="No user 'nobody'"):
        call_command("seed_demo", user="nobody")
