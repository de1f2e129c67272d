from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from memories.models import Memory
from quality.detection import NEGATION_EN, NEGATION_ZH, STALE_RESOLUTION, detect_inconsistencies
from quality.models import Inconsistency
from quality.supersession import propose
from tests.factories import AssociationFactory, MemoryFactory

pytestmark = pytest.mark.django_db


def findings(type_=None):
    rows = Inconsistency.objects.all()
    return list(rows.filter(type=type_) if type_ else rows)


def pair_of(finding):
    return {finding.memory1_id, finding.memory2_id}


@pytest.mark.parametrize(
    ("text", "negated"),
    [
        ("The user is not online", True),
        ("The user can't log in", True),
        ("The user can’t log in", True),
        ("It never rains here", True),
        ("The user no longer works here", True),
        ("Nothing is wrong with notably good knots", False),
        ("This is a note about nobody", False),
        ("The user is online", False),
        ("用户没有权限访问系统", True),
        ("他不会来", True),
        ("用户有权限访问系统", False),
    ],
)
def test_negation_cues_match_on_word_boundaries(text, negated):
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s ~* %s OR %s ~ %s", [text, NEGATION_EN, text, NEGATION_ZH])
        assert cursor.fetchone()[0] is negated


def test_a_statement_and_its_negation_are_a_contradiction(alice):
    online = MemoryFactory(owner=alice, content="The user is online")
    offline = MemoryFactory(owner=alice, content="The user is not online")
    detect_inconsistencies(alice)
    [finding] = findings("contradiction")
    assert pair_of(finding) == {online.id, offline.id}
    assert finding.status == "open"


def test_unrelated_statements_are_not_a_contradiction(alice):
    MemoryFactory(owner=alice, content="The weather is nice")
    MemoryFactory(owner=alice, content="The user is not online")
    detect_inconsistencies(alice)
    assert findings("contradiction") == []


def test_a_chinese_statement_and_its_negation_are_a_contradiction(alice):
    allowed = MemoryFactory(owner=alice, content="用户有权限访问系统")
    denied = MemoryFactory(owner=alice, content="用户没有权限访问系统")
    detect_inconsistencies(alice)
    [finding] = findings("contradiction")
    assert pair_of(finding) == {allowed.id, denied.id}
    assert findings("duplicate") == []


def test_two_identical_negative_sentences_are_a_duplicate_not_a_contradiction(alice):
    MemoryFactory(owner=alice, content="The user is not online")
    MemoryFactory(owner=alice, content="The user is not online", allow_duplicate=True)
    detect_inconsistencies(alice)
    assert findings("contradiction") == []
    assert len(findings("duplicate")) == 1


def test_two_copies_of_a_memory_are_a_duplicate_with_severity_one(alice):
    first = MemoryFactory(owner=alice, content="User logged in successfully")
    second = MemoryFactory(owner=alice, content="User logged in successfully", allow_duplicate=True)
    detect_inconsistencies(alice)
    [finding] = findings("duplicate")
    assert (finding.memory1_id, finding.memory2_id) == tuple(sorted([first.id, second.id]))
    assert finding.severity == pytest.approx(1.0)


def test_contradiction_severity_follows_confidence_and_similarity(alice, embed):
    MemoryFactory(owner=alice, content="The user is online", confidence=0.9)
    MemoryFactory(owner=alice, content="The user is not online", confidence=0.5)
    detect_inconsistencies(alice)
    similarity = float(embed("The user is online") @ embed("The user is not online"))
    [finding] = findings("contradiction")
    assert finding.severity == pytest.approx(min(1, 0.5 + 0.3 * 0.7 + 0.2 * similarity), abs=1e-4)


def test_a_contradicts_association_is_a_contradiction(alice):
    tea = MemoryFactory(owner=alice, content="Alice drinks tea every morning")
    car = MemoryFactory(owner=alice, content="The car was repaired in March")
    AssociationFactory(source=car, target=tea, relation_type="CONTRADICTS")
    detect_inconsistencies(alice)
    [finding] = findings("contradiction")
    assert pair_of(finding) == {tea.id, car.id}
    assert finding.description.startswith("Linked as CONTRADICTS")


def test_a_reworded_duplicate_that_carries_a_negation_is_a_duplicate_not_a_contradiction(alice):
    moment = timezone.now()
    not_ready = MemoryFactory(owner=alice, content="The report is not ready yet", valid_from=moment)
    unfinished = MemoryFactory(owner=alice, content="The report is still unfinished", valid_from=moment)
    detect_inconsistencies(alice)
    assert findings("contradiction") == []
    [finding] = findings("duplicate")
    assert pair_of(finding) == {not_ready.id, unfinished.id}


def test_a_duplicate_the_store_job_found_is_the_one_detection_keeps(alice):
    text = "The release checklist lives in the team wiki under Operations."
    pair = MemoryFactory(owner=alice, content=text), MemoryFactory(owner=alice, content=text + "!")
    first, second = sorted(memory.pk for memory in pair)
    # the memory whose id sorts last is the older one: the job sees the pair in the other order
    Memory.objects.filter(pk=second).update(valid_from=timezone.now() - timedelta(days=1))
    propose([second])  # each memory is read by its own job after its store
    propose([first])
    detect_inconsistencies(alice)
    [finding] = findings("duplicate")
    assert (finding.memory1_id, finding.memory2_id) == (first, second)


def test_a_decision_linked_to_its_incident_is_no_contradiction_for_its_never(alice):
    moment = timezone.now()
    incident = MemoryFactory(
        owner=alice, content="The outage was caused by a missing index", valid_from=moment
    )
    decision = MemoryFactory(
        owner=alice,
        content="We decided never to ship schema changes without an index review",
        valid_from=moment,
    )
    AssociationFactory(source=incident, target=decision, relation_type="LEADS_TO")
    detect_inconsistencies(alice)
    assert findings("contradiction") == []


def test_one_currency_only_and_three_at_once_are_a_contradiction_without_a_negation(alice):
    moment = timezone.now()
    only = MemoryFactory(owner=alice, content="Atlas invoices only in EUR for now", valid_from=moment)
    three = MemoryFactory(
        owner=alice, content="Atlas supports invoices in EUR, USD and GBP from launch", valid_from=moment
    )
    detect_inconsistencies(alice)
    [finding] = findings("contradiction")
    assert pair_of(finding) == {only.id, three.id}


def test_a_memory_not_updated_for_half_a_year_is_outdated(alice):
    old = MemoryFactory(owner=alice, content="The office is on the third floor", days_old=200)
    MemoryFactory(owner=alice, content="The office has a new coffee machine", days_old=10)
    detect_inconsistencies(alice)
    [finding] = findings("outdated")
    assert finding.memory1_id == old.id
    assert finding.memory2_id is None
    assert finding.severity == pytest.approx(200 / 365, abs=1e-3)


def test_a_memory_with_low_confidence_is_flagged(alice):
    shaky = MemoryFactory(owner=alice, content="The meeting might be on Friday", confidence=0.3)
    MemoryFactory(owner=alice, content="The meeting is on Monday", confidence=0.7)
    detect_inconsistencies(alice)
    [finding] = findings("low_confidence")
    assert finding.memory1_id == shaky.id
    assert finding.severity == pytest.approx(0.7)


def test_detection_is_idempotent(alice):
    MemoryFactory(owner=alice, content="The user is online")
    MemoryFactory(owner=alice, content="The user is not online")
    MemoryFactory(owner=alice, content="Old fact", days_old=400)
    first = detect_inconsistencies(alice)
    ids = sorted(row.id for row in findings())
    second = detect_inconsistencies(alice)
    assert sorted(row.id for row in findings()) == ids
    assert first.created == 2
    assert second.created == 0
    assert second.found == first.found


def test_a_dismissed_finding_stays_dismissed_on_the_next_run(alice):
    MemoryFactory(owner=alice, content="The user is online")
    MemoryFactory(owner=alice, content="The user is not online")
    detect_inconsistencies(alice)
    Inconsistency.objects.update(status="dismissed", resolved_at=timezone.now())
    detect_inconsistencies(alice)
    [finding] = findings()
    assert finding.status == "dismissed"


def test_a_resolved_finding_stays_resolved_while_its_memories_are_unchanged(alice):
    MemoryFactory(owner=alice, content="The user is online")
    MemoryFactory(owner=alice, content="The user is not online")
    detect_inconsistencies(alice)
    Inconsistency.objects.update(status="resolved", resolution="keep_both", resolved_at=timezone.now())
    detect_inconsistencies(alice)
    assert findings()[0].status == "resolved"


def test_a_resolved_finding_reopens_when_a_memory_changes_and_it_still_holds(alice):
    online = MemoryFactory(owner=alice, content="The user is online")
    MemoryFactory(owner=alice, content="The user is not online")
    detect_inconsistencies(alice)
    Inconsistency.objects.update(
        status="resolved", resolution="keep_both", resolved_at=timezone.now() - timedelta(hours=1)
    )
    Memory.objects.filter(pk=online.pk).update(updated_at=timezone.now())
    detect_inconsistencies(alice)
    [finding] = findings()
    assert (finding.status, finding.resolution, finding.resolved_at) == ("open", "", None)


def test_a_finding_no_longer_found_is_resolved_automatically(alice, embed):
    MemoryFactory(owner=alice, content="The user is online")
    offline = MemoryFactory(owner=alice, content="The user is not online")
    detect_inconsistencies(alice)
    text = "The quarterly budget was approved"
    Memory.objects.filter(pk=offline.pk).update(content=text, embedding=embed(text))
    result = detect_inconsistencies(alice)
    [finding] = findings()
    assert (finding.status, finding.resolution) == ("resolved", STALE_RESOLUTION)
    assert result.no_longer_detected == 1


def test_archived_memories_are_not_compared(alice):
    MemoryFactory(owner=alice, content="The user is online")
    MemoryFactory(owner=alice, content="The user is not online", archived_at=timezone.now())
    detect_inconsistencies(alice)
    assert findings() == []


def test_detection_never_pairs_memories_of_different_owners(alice, bob):
    MemoryFactory(owner=alice, content="The invoice was paid on Monday")
    MemoryFactory(owner=bob, content="The invoice was paid on Monday")
    MemoryFactory(owner=alice, content="The user is not online")
    MemoryFactory(owner=bob, content="The user is online")
    detect_inconsistencies()
    assert findings() == []


def test_owner_scoped_detection_leaves_other_owners_alone(alice, bob):
    MemoryFactory(owner=bob, content="Bob's old note", days_old=300)
    detect_inconsistencies(alice)
    assert findings() == []
    detect_inconsistencies()
    assert len(findings("outdated")) == 1


def test_an_open_contradiction_lowers_consistency_after_detection(alice):
    online = MemoryFactory(owner=alice, content="The user is online")
    MemoryFactory(owner=alice, content="The user is not online")
    detect_inconsistencies(alice)
    online.refresh_from_db()
    severity = findings("contradiction")[0].severity
    assert online.quality_consistency == pytest.approx(0.3 * (1 - 0.5 * severity))


def test_detection_in_many_chunks_finds_the_same_pairs(alice, monkeypatch):
    MemoryFactory(owner=alice, content="The user is online")
    MemoryFactory(owner=alice, content="The user is not online")
    MemoryFactory(owner=alice, content="The invoice was paid on Monday")
    MemoryFactory(owner=alice, content="The invoice was paid on Monday", allow_duplicate=True)
    MemoryFactory(owner=alice, content="The weather is nice")
    monkeypatch.setattr("quality.detection.CHUNK_SIZE", 2)
    seen = []
    result = detect_inconsistencies(alice, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 5), (3, 5), (5, 5)]
    assert (result.found["contradiction"], result.found["duplicate"]) == (1, 1)
