import pytest

from graph.age import cypher
from graph.models import Association
from memories.models import Memory
from memsite.errors import NotFound
from quality.models import Inconsistency
from quality.services import (
    detect_for_owner,
    dismiss_inconsistency,
    reclassify_inconsistency,
    resolve_inconsistency,
)
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db
UNRELATED = [
    "The office plants need water twice a week",
    "Bruno's bike has a flat tyre",
    "The printer on the second floor jams on thick paper",
    "Lena prefers window seats on long flights",
    "The fire drill happens every spring",
]


@pytest.fixture
def contradiction(alice, alice_client):
    online = MemoryFactory(owner=alice, content="The user is online", days_old=3)
    offline = MemoryFactory(owner=alice, content="The user is not online")
    detect_for_owner(alice)
    return Inconsistency.objects.get(type="contradiction"), online, offline


@pytest.fixture
def duplicate(alice, alice_client):
    first = MemoryFactory(
        owner=alice, content="User logged in successfully", source_id="session-log", quality_score=0.4
    )
    second = MemoryFactory(
        owner=alice,
        content="User logged in successfully",
        source_id="audit-log",
        quality_score=0.6,
        allow_duplicate=True,
    )
    detect_for_owner(alice)
    return Inconsistency.objects.get(type="duplicate"), first, second


def resolve(client, finding, **body):
    return client.post(f"/api/quality/inconsistencies/{finding.pk}/resolve", body, format="json")


def queue_and_run(client, run_jobs):
    """POST detect (202), let a worker run the job, answer the polled job."""
    response = client.post("/api/quality/inconsistencies/detect")
    assert response.status_code == 202
    poll = response.json()["poll"]
    assert client.get(poll).json()["job"]["status"] == "todo"
    run_jobs()
    return client.get(poll).json()["job"]


@pytest.mark.django_db(transaction=True)
def test_detect_answers_202_and_the_polled_job_holds_the_runs_summary(
    alice_client, alice, run_jobs
):
    MemoryFactory(owner=alice, content="The user is online")
    MemoryFactory(owner=alice, content="The user is not online")
    job = queue_and_run(alice_client, run_jobs)
    assert job["status"] == "succeeded"
    assert job["result"]["scanned"] == 2
    assert job["result"]["found"]["contradiction"] == 1
    assert job["result"]["created"] == 1
    assert Inconsistency.objects.filter(type="contradiction").count() == 1


@pytest.mark.django_db(transaction=True)
def test_detect_covers_only_the_callers_memories(bob_client, alice_client, alice, run_jobs):
    MemoryFactory(owner=alice, content="The user is online")
    MemoryFactory(owner=alice, content="The user is not online")
    job = queue_and_run(bob_client, run_jobs)
    assert job["result"]["scanned"] == 0
    assert not Inconsistency.objects.exists()
    assert alice_client.get(f"/api/jobs/{job['id']}").status_code == 404


def test_the_list_shows_findings_with_both_memories(alice_client, contradiction):
    finding, online, offline = contradiction
    body = alice_client.get("/api/quality/inconsistencies").json()
    assert body["count"] == 1
    [row] = body["results"]
    assert row["type"] == "contradiction"
    assert {row["memory1"]["content"], row["memory2"]["content"]} == {online.content, offline.content}


def test_the_list_filters_by_type_and_status(alice_client, contradiction):
    assert alice_client.get("/api/quality/inconsistencies", {"type": "duplicate"}).json()["count"] == 0
    assert alice_client.get("/api/quality/inconsistencies", {"status": "open"}).json()["count"] == 1
    assert alice_client.get("/api/quality/inconsistencies", {"status": "dismissed"}).json()["count"] == 0


@pytest.mark.parametrize("params", [{"type": "bogus"}, {"status": "closed"}, {"min_severity": "x"}])
def test_the_list_rejects_unknown_filter_values(alice_client, params):
    response = alice_client.get("/api/quality/inconsistencies", params)
    assert response.status_code == 400
    assert response.json()["status"] == "error"


def test_another_users_finding_is_not_found(bob_client, contradiction):
    finding, _, _ = contradiction
    assert bob_client.get("/api/quality/inconsistencies").json()["count"] == 0
    assert bob_client.get(f"/api/quality/inconsistencies/{finding.pk}").status_code == 404
    assert bob_client.post(f"/api/quality/inconsistencies/{finding.pk}/dismiss").status_code == 404
    response = resolve(bob_client, finding, action="keep_both")
    assert (response.status_code, response.json()["message"]) == (404, "Inconsistency not found")
    finding.refresh_from_db()
    assert finding.status == "open"


def test_keep_both_resolves_and_restores_consistency(alice_client, contradiction):
    finding, online, _ = contradiction
    online.refresh_from_db()
    assert online.quality_consistency < 0.3
    body = resolve(alice_client, finding, action="keep_both").json()
    assert (body["status"], body["resolution"], body["resolved_by"]) == ("resolved", "keep_both", "alice")
    online.refresh_from_db()
    assert online.quality_consistency == pytest.approx(0.3)


def test_archive_archives_the_named_memory(alice_client, contradiction):
    finding, online, offline = contradiction
    body = resolve(alice_client, finding, action="archive", memory_id=str(offline.pk)).json()
    assert body["resolution"] == "archive"
    offline.refresh_from_db()
    online.refresh_from_db()
    assert offline.is_archived
    assert not online.is_archived


def test_archive_needs_to_know_which_memory(alice_client, contradiction):
    finding, _, _ = contradiction
    response = resolve(alice_client, finding, action="archive")
    assert response.status_code == 400
    assert response.json()["message"] == "'memory_id' is required: which memory to archive"


def test_archive_refuses_a_memory_outside_the_finding(alice_client, alice, contradiction):
    finding, _, _ = contradiction
    stranger = MemoryFactory(owner=alice, content="Unrelated")
    response = resolve(alice_client, finding, action="archive", memory_id=str(stranger.pk))
    assert response.json()["message"] == "'memory_id' must be one of the finding's memories"


def test_merge_keeps_the_better_duplicate_and_counts_the_other_as_corroboration(alice_client, duplicate):
    finding, worse, better = duplicate
    body = resolve(alice_client, finding, action="merge").json()
    assert body["resolution"] == "merge"
    worse.refresh_from_db()
    better.refresh_from_db()
    assert worse.is_archived
    assert not better.is_archived
    assert better.corroborating_sources == ["session-log"]
    assert better.quality_accuracy == pytest.approx(0.75)


def test_merge_keeps_the_named_duplicate(alice_client, duplicate):
    finding, worse, better = duplicate
    resolve(alice_client, finding, action="merge", memory_id=str(worse.pk))
    worse.refresh_from_db()
    better.refresh_from_db()
    assert better.is_archived
    assert worse.corroborating_sources == ["audit-log"]


def test_merge_applies_only_to_duplicates(alice_client, contradiction):
    finding, _, _ = contradiction
    response = resolve(alice_client, finding, action="merge")
    assert response.status_code == 400
    assert response.json()["message"] == "'merge' applies only to duplicates"


def test_link_contradicts_creates_the_association_and_its_graph_edge(alice_client, contradiction):
    finding, _, _ = contradiction
    resolve(alice_client, finding, action="link_contradicts", reason="status changed")
    edge = Association.objects.get(relation_type="CONTRADICTS")
    assert (edge.source_id, edge.target_id) == (finding.memory1_id, finding.memory2_id)
    assert edge.properties == {"reason": "status changed"}
    rows = cypher(
        "MATCH (a:Memory {id: $a})-[r:CONTRADICTS]->(b:Memory {id: $b}) RETURN count(r)",
        {"a": str(finding.memory1_id), "b": str(finding.memory2_id)},
    )
    assert rows == [(1,)]


def test_link_invalidated_by_points_from_the_older_memory_to_the_newer(alice_client, contradiction):
    finding, online, offline = contradiction
    resolve(alice_client, finding, action="link_invalidated_by")
    edge = Association.objects.get(relation_type="INVALIDATED_BY")
    assert (edge.source_id, edge.target_id) == (online.pk, offline.pk)


def test_a_linked_contradiction_stays_resolved_on_the_next_run(alice_client, alice, contradiction):
    finding, _, _ = contradiction
    resolve(alice_client, finding, action="link_contradicts")
    detect_for_owner(alice)
    finding.refresh_from_db()
    assert finding.status == "resolved"


def test_dismiss_keeps_the_finding_dismissed_on_the_next_run(alice_client, alice, contradiction):
    finding, online, _ = contradiction
    body = alice_client.post(f"/api/quality/inconsistencies/{finding.pk}/dismiss").json()
    assert (body["status"], body["resolution"]) == ("dismissed", "dismissed")
    detect_for_owner(alice)
    finding.refresh_from_db()
    assert finding.status == "dismissed"
    online.refresh_from_db()
    assert online.quality_consistency == pytest.approx(0.3)


def test_a_closed_finding_cannot_be_resolved_again(alice_client, contradiction):
    finding, _, _ = contradiction
    resolve(alice_client, finding, action="keep_both")
    response = resolve(alice_client, finding, action="keep_both")
    assert response.status_code == 409
    assert response.json()["message"] == "Inconsistency is already resolved"
    response = alice_client.post(f"/api/quality/inconsistencies/{finding.pk}/dismiss")
    assert response.status_code == 409


@pytest.mark.parametrize(
    "body",
    [{}, {"action": "burn"}, {"action": "archive", "memory_id": "nope"}, {"action": 3}, {"reason": "x"}],
)
def test_resolve_rejects_bad_bodies(alice_client, contradiction, body):
    finding, _, _ = contradiction
    response = resolve(alice_client, finding, **body)
    assert response.status_code == 400
    assert response.json()["status"] == "error"


def test_single_memory_findings_can_be_archived_but_not_merged(alice_client, alice):
    old = MemoryFactory(owner=alice, content="The office is on the third floor", days_old=400)
    detect_for_owner(alice)
    finding = Inconsistency.objects.get(type="outdated")
    response = resolve(alice_client, finding, action="keep_both")
    assert response.json()["message"] == "'keep_both' needs a finding between two memories"
    assert resolve(alice_client, finding, action="archive").status_code == 200
    assert Memory.objects.get(pk=old.pk).is_archived


def test_the_list_does_not_query_per_finding(alice_client, alice, django_assert_max_num_queries):
    for content in UNRELATED:
        MemoryFactory(owner=alice, content=content, days_old=300)
    detect_for_owner(alice)
    with django_assert_max_num_queries(10):  # token, throttle cache, count, page
        body = alice_client.get("/api/quality/inconsistencies").json()
    assert body["count"] == 5


def test_the_service_accepts_the_memory_id_as_text(alice, contradiction):
    finding, _, offline = contradiction
    resolve_inconsistency(finding, "archive", alice, memory_id=str(offline.pk))
    offline.refresh_from_db()
    assert offline.is_archived


@pytest.mark.parametrize("decide", ["resolve", "dismiss", "reclassify"])
def test_a_finding_whose_memory_was_deleted_meanwhile_is_not_found(alice, contradiction, decide):
    finding, online, _ = contradiction
    online.delete()  # its findings go with it, after the caller had read this one
    with pytest.raises(NotFound):
        {
            "resolve": lambda: resolve_inconsistency(finding, "keep_both", alice),
            "dismiss": lambda: dismiss_inconsistency(finding, alice),
            "reclassify": lambda: reclassify_inconsistency(finding, "duplicate", alice),
        }[decide]()
