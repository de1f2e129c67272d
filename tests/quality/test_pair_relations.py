"""What the relation model read is kept per pair of contents, so that a pair is read once."""

from datetime import timedelta

import numpy as np
import pytest
from django.utils import timezone

from memories.services import update_memory
from quality import supersession
from quality.detection import detect_inconsistencies
from quality.facts import relation
from quality.models import Inconsistency, PairRelation
from tests.conftest import at_once
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_second_detection_run_reads_no_pair_again(alice, monkeypatch):
    MemoryFactory(owner=alice, content="Ines lives in Ghent.")
    MemoryFactory(owner=alice, content="Ines has been living in Antwerp since April.")
    detect_inconsistencies(alice)
    kept = list(PairRelation.objects.values_list("model", "conflicting"))
    assert kept
    assert all(model == relation.key() for model, _ in kept)

    asked = []
    read = relation.relations
    monkeypatch.setattr(relation, "relations", lambda pairs: asked.append(list(pairs)) or read(pairs))
    detect_inconsistencies(alice)
    assert all(pairs == [] for pairs in asked)
    assert list(PairRelation.objects.values_list("model", "conflicting")) == kept


def test_an_edited_memory_is_read_again_with_its_new_content(alice, monkeypatch):
    MemoryFactory(owner=alice, content="Ines plays the cello.")
    newer = MemoryFactory(owner=alice, content="Ines's son plays the drums in the school band.")
    detect_inconsistencies(alice)
    asked = []
    read = relation.relations
    monkeypatch.setattr(relation, "relations", lambda pairs: asked.append(list(pairs)) or read(pairs))
    update_memory(newer, {"content": "Ines's son plays the trumpet in the school band."})
    detect_inconsistencies(alice)
    assert sum(asked, []) == [("Ines plays the cello.", "Ines's son plays the trumpet in the school band.")]


def test_two_runs_keeping_the_same_relations_at_once_keep_one_row():
    read = {("a" * 64, "b" * 64): relation.row(0.9, 0.05)}
    results = at_once([lambda: supersession.keep(read) or "kept", lambda: supersession.keep(read) or "kept"])
    assert results == ["kept", "kept"]
    [kept] = PairRelation.objects.all()
    assert (kept.conflicting, kept.same) == pytest.approx((0.9, 0.05))


def test_texts_a_hostile_client_may_store_are_read_as_a_distribution():
    found = relation.relations(
        [
            ("word " * 5000, "Ines lives in Ghent."),
            ("🙂\u200b\u202e", "\t\n"),
            ("我们搬到苏州了。" * 300, "We moved to Suzhou."),
        ]
    )
    assert found.shape == (3, 3)
    assert np.isfinite(found).all()
    assert found.sum(axis=1) == pytest.approx([1, 1, 1], abs=1e-4)


def test_a_proposal_job_killed_before_it_kept_what_it_read_reads_the_pair_again_next_time(
    alice, monkeypatch
):
    older = MemoryFactory(
        owner=alice, content="Ines plays the cello.", valid_from=timezone.now() - timedelta(days=60)
    )
    newer = MemoryFactory(owner=alice, content="Ines's son plays the drums in the school band.")
    supersession.propose([older.pk])

    def killed(read):
        raise SystemExit("worker killed")

    monkeypatch.setattr(supersession, "keep", killed)
    with pytest.raises(SystemExit):
        supersession.propose([newer.pk])
    assert not PairRelation.objects.exists()
    findings = list(Inconsistency.objects.values_list("type", "memory1_id", "memory2_id", "status"))

    monkeypatch.undo()
    asked = []
    read = relation.relations
    monkeypatch.setattr(relation, "relations", lambda pairs: asked.append(list(pairs)) or read(pairs))
    supersession.propose([newer.pk])
    assert sum(asked, []) == [(older.content, newer.content)]
    assert PairRelation.objects.count() == 1
    assert list(Inconsistency.objects.values_list("type", "memory1_id", "memory2_id", "status")) == findings
