import threading
import uuid
from datetime import timedelta

import pytest
from django.db import DEFAULT_DB_ALIAS, connections
from django.utils import timezone
from procrastinate.contrib.django.models import ProcrastinateJob

from graph import enrichment, entities
from graph.models import Association, Enrichment
from memories.models import Memory
from tests.conftest import in_thread

DEPLOY = "The deploy pipeline failed because the Docker image was too large."
DEPLOY_AGAIN = "Our deploy pipeline failed since the Docker image was far too large."


pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def store(alice_client, run_jobs):
    """POST /memory, then let a worker run the enrichment job the store queued."""

    def post(content, tags=(), **extra):
        body = {"content": content, "tags": list(tags), **extra}
        response = alice_client.post("/memory", body, format="json")
        assert response.status_code == 201, response.content
        run_jobs()
        return Memory.objects.get(pk=response.json()["memory_id"])

    return post


def edges(kind):
    return {(str(a.source_id), str(a.target_id)): a for a in Association.objects.filter(relation_type=kind)}


def test_a_new_memory_is_preceded_by_the_previous_one_in_its_scope(store, graph_agrees):
    first = store("Sprint planning for the billing team", tags=["work"])
    store("Groceries: apples and bread", tags=["home"])
    second = store("Sprint review for the billing team", tags=["work", "review"])
    preceded = edges("PRECEDED_BY")
    assert (str(second.pk), str(first.pk)) in preceded
    edge = preceded[(str(second.pk), str(first.pk))]
    assert edge.origin == "enrichment"
    assert edge.properties == {"count": 1}
    assert all(source != str(second.pk) or target == str(first.pk) for source, target in preceded)
    graph_agrees()


def test_untagged_memories_enriched_one_by_one_are_chained_whatever_entity_tags_they_get(
    store, graph_agrees
):
    question = store("Where is a good place to go hiking near Denver?")
    reply = store("Try Mount Falcon Park, about 30 minutes west of Denver.")
    store("We went hiking there last weekend.", tags=["entity:denver", "trips"])  # scope "trips"

    assert question.tags == ["entity:denver"]  # tagged by its own job, before the reply was stored
    assert set(edges("PRECEDED_BY")) == {(str(reply.pk), str(question.pk))}
    graph_agrees()


def test_no_preceded_by_edge_to_a_memory_older_than_seven_days(store):
    old = (timezone.now() - timedelta(days=8)).isoformat()
    store("Quarterly goals were drafted", tags=["goals"], timestamp=old)
    newer = store("Quarterly goals were approved", tags=["goals"])
    assert not any(source == str(newer.pk) for source, _ in edges("PRECEDED_BY"))


def test_near_duplicates_get_one_similar_to_edge_with_their_cosine(store, graph_agrees):
    first = store(DEPLOY, tags=["ci"])
    second = store(DEPLOY_AGAIN, tags=["ops"])
    similar = edges("SIMILAR_TO")
    assert list(similar) == [(str(second.pk), str(first.pk))]
    edge = similar[(str(second.pk), str(first.pk))]
    assert edge.strength >= 0.8
    assert edge.properties == {"score": edge.strength}
    assert edge.origin == "enrichment"
    graph_agrees()


def test_proper_names_become_entity_tags(store):
    sister = store("Sarah's sister is Rachel", tags=["family"])
    job = store("Rachel is a software engineer at Tech Corp", tags=["career"])
    assert "entity:rachel" in sister.tags
    assert "entity:sarah" in sister.tags
    assert {"entity:tech-corp", "entity:rachel"} <= set(job.tags)
    assert job.tags[0] == "career"


def test_a_name_the_owner_already_tags_is_tagged_at_a_sentence_start(store):
    store("We flew to Vandria in May.", tags=["travel"])
    assert "entity:vandria" in store("Vandria was rainy all week.", tags=["travel"]).tags
    assert "entity:quorvel" not in store("Quorvel was sunny all week.", tags=["travel"]).tags


def test_proper_names_ignore_sentence_starts_but_know_existing_entities():
    assert entities.proper_names("Yesterday we met Anna Lee in Paris. Then lunch.") == {"anna-lee", "paris"}
    assert entities.proper_names("Vandria was rainy.") == set()
    assert entities.proper_names("Vandria was rainy.", known={"vandria"}) == {"vandria"}


def test_a_batch_store_is_enriched_in_bulk(alice_client, run_jobs):
    response = alice_client.post(
        "/memory/batch",
        {"memories": [{"content": DEPLOY, "tags": ["ci"]}, {"content": DEPLOY_AGAIN, "tags": ["ci"]}]},
        format="json",
    )
    assert response.status_code in (200, 201), response.content
    assert ProcrastinateJob.objects.filter(task_name="graph.tasks.enrich_memories").count() == 1
    assert set(Enrichment.objects.values_list("status", flat=True)) == {"pending"}
    run_jobs()
    assert len(edges("SIMILAR_TO")) == 1
    assert set(Enrichment.objects.values_list("status", flat=True)) == {"done"}


def test_a_failing_enrichment_never_loses_the_stored_memory(
    store, alice_client, staff_client, monkeypatch, graph_agrees
):
    def broken(ids):
        raise RuntimeError("similarity search exploded")

    monkeypatch.setattr(enrichment, "_similar_links", broken)
    first = store(DEPLOY, tags=["ci"])
    assert Memory.objects.filter(pk=first.pk).exists()
    status = alice_client.get("/enrichment/status").json()
    assert status["failed_count"] == 1
    assert status["failed"][0]["memory_id"] == str(first.pk)
    assert "similarity search exploded" in status["failed"][0]["error"]
    assert not Association.objects.exists()
    graph_agrees()

    monkeypatch.undo()
    assert (
        alice_client.post("/enrichment/reprocess", {"ids": [str(first.pk)]}, format="json").status_code == 403
    )
    response = staff_client.post("/enrichment/reprocess", {"ids": [str(first.pk)]}, format="json")
    assert response.status_code == 200
    assert response.json()["failed"] == 0
    assert alice_client.get("/enrichment/status").json()["done_count"] == 1


def stored_singles(client, contents):
    ids = []
    for content in contents:
        response = client.post("/memory", {"content": content, "tags": ["ci"]}, format="json")
        assert response.status_code == 201, response.content
        ids.append(response.json()["memory_id"])
    return ids


def test_an_enrichment_job_also_enriches_other_pending_memories(alice_client, settings, graph_agrees):
    first, second, third = stored_singles(alice_client, [DEPLOY, DEPLOY_AGAIN, "Lunch is at noon."])

    assert enrichment.enrich([third], claim=True)["processed"] == 3
    assert set(Enrichment.objects.values_list("status", flat=True)) == {"done"}
    assert {frozenset(pair) for pair in edges("SIMILAR_TO")} == {frozenset((first, second))}
    assert enrichment.enrich([first], claim=True)["processed"] == 0  # its own job finds it done
    graph_agrees()

    settings.ENRICHMENT_TAKE_PENDING = 0
    fourth, fifth = stored_singles(alice_client, ["The build cache was cold.", "The build cache was warm."])
    assert enrichment.enrich([fourth], claim=True)["processed"] == 1
    assert Enrichment.objects.get(memory_id=fifth).status == "pending"


def test_an_enrichment_job_leaves_memories_another_job_is_enriching_to_it(alice_client):
    first, second = stored_singles(alice_client, [DEPLOY, "Lunch is at noon."])
    other_job = connections.create_connection(DEFAULT_DB_ALIAS)
    other_job.set_autocommit(False)
    try:
        with other_job.cursor() as cursor:
            cursor.execute("SELECT 1 FROM graph_enrichment WHERE memory_id = %s FOR UPDATE", [first])
        assert enrichment.enrich([first], claim=True)["processed"] == 1  # the second one, not waiting
    finally:
        other_job.rollback()
        other_job.close()
    assert dict(Enrichment.objects.values_list("memory_id", "status")) == {
        uuid.UUID(first): "pending",
        uuid.UUID(second): "done",
    }


def test_concurrent_enrichment_jobs_take_different_pending_memories(alice_client, settings):
    settings.ENRICHMENT_TAKE_PENDING = 2
    ids = stored_singles(alice_client, [DEPLOY, DEPLOY_AGAIN, "Lunch is at noon.", "The cache was cold."])
    other_job = connections.create_connection(DEFAULT_DB_ALIAS)
    other_job.set_autocommit(False)
    try:
        with other_job.cursor() as cursor:
            cursor.execute(enrichment.PENDING_SQL, {"ids": [], "more": 2})
            assert sorted(str(row[0]) for row in cursor.fetchall()) == sorted(ids[:2])  # the two oldest
        # Its own memory is the other job's now: this job takes the next two instead, without waiting.
        assert enrichment.enrich([ids[0]], claim=True)["processed"] == 2
    finally:
        other_job.rollback()
        other_job.close()
    rows = Enrichment.objects.values_list("memory_id", "status")
    statuses = {str(memory_id): status for memory_id, status in rows}
    assert statuses == {ids[0]: "pending", ids[1]: "pending", ids[2]: "done", ids[3]: "done"}


def test_a_delete_while_a_job_finds_its_links_is_not_blocked_by_the_job(alice_client, monkeypatch):
    (first,) = stored_singles(alice_client, [DEPLOY])
    found, go_on = threading.Event(), threading.Event()
    lock_memories = enrichment._lock_memories

    def paused(ids, links):
        found.set()
        assert go_on.wait(30)
        lock_memories(ids, links)

    monkeypatch.setattr(enrichment, "_lock_memories", paused)
    worker, results = in_thread(enrichment.enrich, [first], claim=True)
    try:
        assert found.wait(30)
        response = alice_client.delete(f"/memory/{first}")  # the job holds no lock yet
    finally:
        go_on.set()
        worker.join(30)
    assert response.status_code in (200, 204), response.content
    assert results == [{"processed": 0, "edges": 0, "entity_tags": 0, "failed": 0}]
    assert not Enrichment.objects.exists()


def test_enrichment_can_be_switched_off(store, settings):
    settings.ENRICHMENT_ENABLED = False
    store(DEPLOY, tags=["ci"])
    store(DEPLOY_AGAIN, tags=["ci"])
    assert not Association.objects.exists()
    assert not Enrichment.objects.exists()


TURNS = [
    "Caroline: I went to the support group yesterday.",
    "Melanie: How did it go?",
    "Caroline: It was powerful, everyone shared their stories.",
    "Melanie: I am glad you found people who understand.",
]


def store_batch(client, run_jobs, items):
    """POST /memory/batch, then let a worker run the enrichment job the store queued."""
    response = client.post("/memory/batch", {"memories": items}, format="json")
    assert response.status_code in (200, 201), response.content
    run_jobs()
    return [str(item["memory_id"]) for item in sorted(response.json()["succeeded"], key=lambda i: i["index"])]


def chain(ids):
    """The PRECEDED_BY edges a conversation of `ids` must have: each turn to the one before."""
    return {(later, earlier) for earlier, later in zip(ids, ids[1:], strict=False)}


def test_a_batch_with_one_timestamp_is_chained_in_batch_order(alice_client, run_jobs):
    stamp = "2023-05-08T13:56:00Z"
    ids = store_batch(
        alice_client,
        run_jobs,
        [{"content": turn, "tags": ["chat"], "timestamp": stamp} for turn in TURNS],
    )
    assert set(edges("PRECEDED_BY")) == chain(ids)
    sequences = [Memory.objects.get(pk=pk).sequence for pk in ids]
    assert sequences == sorted(sequences)


def test_a_batch_without_timestamps_is_chained_in_batch_order(alice_client, run_jobs):
    ids = store_batch(
        alice_client,
        run_jobs,
        [{"content": turn, "tags": ["chat"]} for turn in TURNS],
    )
    assert len({Memory.objects.get(pk=pk).created_at for pk in ids}) == 1
    assert set(edges("PRECEDED_BY")) == chain(ids)


def test_a_later_batch_continues_the_chain_of_an_earlier_one(alice_client, run_jobs):
    stamp = "2023-05-08T13:56:00Z"
    first = store_batch(
        alice_client,
        run_jobs,
        [{"content": turn, "tags": ["chat"], "timestamp": stamp} for turn in TURNS[:2]],
    )
    second = store_batch(
        alice_client,
        run_jobs,
        [{"content": turn, "tags": ["chat"], "timestamp": stamp} for turn in TURNS[2:]],
    )
    assert set(edges("PRECEDED_BY")) == chain(first + second)
