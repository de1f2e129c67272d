"""Enrichment jobs of one owner's neighbouring memories run side by side, one edge per pair."""

import threading
import uuid

import pytest
from django.db import DEFAULT_DB_ALIAS, connections

from graph import enrichment
from graph.models import Association, Enrichment
from memories.models import Memory
from tests.conftest import client_for, in_thread
from tests.graph.test_enrichment import DEPLOY, DEPLOY_AGAIN, edges, stored_singles

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def paused_after_writing(monkeypatch):
    """Call with a memory's id: the first job enriching it stops inside its transaction once it wrote
    its edges, until the second event answered is set (then raises `error`, if given); the first
    event is set when it stops."""

    def pause(memory_id, error=None):
        written, go_on = threading.Event(), threading.Event()
        write = enrichment._write

        def write_then_pause(links):
            count = write(links)
            if not written.is_set() and any(str(link.source) == memory_id for _, link in links):
                written.set()
                assert go_on.wait(30)
                if error:
                    raise error
            return count

        monkeypatch.setattr(enrichment, "_write", write_then_pause)
        return written, go_on

    return pause


def test_a_job_links_to_a_memory_another_job_is_tagging_without_waiting_for_it(alice_client, settings):
    settings.ENRICHMENT_TAKE_PENDING = 0
    first, second = stored_singles(alice_client, [DEPLOY, "Lunch is at noon."])
    other_job = connections.create_connection(DEFAULT_DB_ALIAS)
    other_job.set_autocommit(False)
    try:
        with other_job.cursor() as cursor:  # what the job enriching `first` holds until it commits
            cursor.execute(enrichment.PENDING_SQL, {"ids": [first], "more": 0})
            cursor.execute(enrichment.LOCK_SQL, {"ids": [first], "own": [first]})
            cursor.execute(enrichment.CLAIM_SQL, [[first]])
        job, results = in_thread(enrichment.enrich, [second], claim=True)
        job.join(20)
        finished = not job.is_alive()
    finally:
        other_job.rollback()
        other_job.close()
    job.join(30)
    assert finished, "the job waited for the other job's transaction"
    assert results == [{"processed": 1, "edges": 1, "entity_tags": 0, "failed": 0}]
    assert (second, first) in edges("PRECEDED_BY")
    assert Enrichment.objects.get(memory_id=second).status == "done"


def test_a_memory_deleted_while_a_job_links_to_it_goes_with_the_new_edges(
    alice, alice_client, settings, paused_after_writing, graph_agrees
):
    settings.ENRICHMENT_TAKE_PENDING = 0
    first, second = stored_singles(alice_client, [DEPLOY, "Lunch is at noon."])
    written, go_on = paused_after_writing(second)
    job, results = in_thread(enrichment.enrich, [second], claim=True)
    try:
        assert written.wait(30)  # the job holds its edge from `second` to `first`, not committed
        delete, responses = in_thread(client_for(alice).delete, f"/memory/{first}")
        delete.join(1)
        waited = delete.is_alive()
    finally:
        go_on.set()
        job.join(30)
    delete.join(30)

    assert waited, "the delete did not wait for the job's transaction"
    assert results == [{"processed": 1, "edges": 1, "entity_tags": 0, "failed": 0}]
    assert responses[0].status_code == 200
    assert list(Memory.objects.values_list("id", flat=True)) == [uuid.UUID(second)]
    assert not Association.objects.exists()
    graph_agrees()


def test_a_job_leaves_a_pair_another_job_is_linking_to_it_without_waiting(
    alice_client, settings, paused_after_writing, graph_agrees
):
    settings.ENRICHMENT_TAKE_PENDING = 0
    first, second = stored_singles(alice_client, [DEPLOY, DEPLOY_AGAIN])
    written, go_on = paused_after_writing(first)
    first_job, first_results = in_thread(enrichment.enrich, [first], claim=True)
    try:
        assert written.wait(30)
        second_job, second_results = in_thread(enrichment.enrich, [second], claim=True)
        second_job.join(20)
        finished = not second_job.is_alive()
    finally:
        go_on.set()
        first_job.join(30)
    second_job.join(30)

    assert finished, "the second job waited for the first"
    assert first_results[0]["failed"] == second_results[0]["failed"] == 0
    similar = Association.objects.filter(relation_type="SIMILAR_TO").values_list("source", "target")
    assert [(str(source), str(target)) for source, target in similar] == [(first, second)]
    assert set(Enrichment.objects.values_list("status", flat=True)) == {"done"}
    graph_agrees()


def test_a_pair_left_to_a_job_that_fails_is_linked_when_its_memory_is_enriched_again(
    alice_client, settings, paused_after_writing, graph_agrees
):
    settings.ENRICHMENT_TAKE_PENDING = 0
    first, second = stored_singles(alice_client, [DEPLOY, DEPLOY_AGAIN])
    written, go_on = paused_after_writing(first, error=RuntimeError("the worker went away"))
    first_job, first_results = in_thread(enrichment.enrich, [first], claim=True)
    try:
        assert written.wait(30)
        assert enrichment.enrich([second], claim=True)["failed"] == 0  # leaves the pair to the first
    finally:
        go_on.set()
        first_job.join(30)

    assert first_results == [{"processed": 1, "edges": 0, "entity_tags": 0, "failed": 1}]
    assert not Association.objects.filter(relation_type="SIMILAR_TO").exists()
    statuses = dict(Enrichment.objects.values_list("memory_id", "status"))
    assert statuses == {uuid.UUID(first): "failed", uuid.UUID(second): "done"}

    assert enrichment.reprocess([first])["failed"] == 0
    similar = Association.objects.filter(relation_type="SIMILAR_TO").values_list("source", "target")
    assert [(str(source), str(target)) for source, target in similar] == [(first, second)]
    graph_agrees()
