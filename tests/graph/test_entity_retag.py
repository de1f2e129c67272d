import threading

import pytest
from django.core.management import call_command
from procrastinate.contrib.django.models import ProcrastinateJob

from graph import enrichment
from memories.models import Memory
from tests.conftest import in_thread

pytestmark = pytest.mark.django_db(transaction=True)

CONTENTS = [
    "Caroline: I went to the support group yesterday.",
    "Priya moved to Berlin last spring.",
    "The kettle is broken again.",
]


@pytest.fixture
def untagged(alice_client, run_jobs, settings):
    """Memories stored and enriched while entity tags were off, as before today's rules."""
    settings.ENRICHMENT_ENTITY_TAGS = False
    ids = []
    for content in CONTENTS:
        response = alice_client.post("/memory", {"content": content, "tags": ["chat"]}, format="json")
        assert response.status_code == 201, response.content
        ids.append(response.json()["memory_id"])
    run_jobs()
    settings.ENRICHMENT_ENTITY_TAGS = True
    assert all(tags == ["chat"] for tags in Memory.objects.values_list("tags", flat=True))
    return ids


def tags_of(ids):
    return [Memory.objects.get(pk=pk).tags for pk in ids]


def test_the_queued_retag_job_tags_every_existing_memory_batch_by_batch(untagged, run_jobs, monkeypatch):
    monkeypatch.setattr(enrichment, "RETAG_BATCH", 2)
    call_command("graph_retag_entities")
    run_jobs()
    assert tags_of(untagged) == [
        ["chat", "entity:caroline"],
        ["chat", "entity:berlin", "entity:priya"],
        ["chat"],
    ]
    retag_jobs = ProcrastinateJob.objects.filter(task_name="graph.tasks.retag_entities")
    assert retag_jobs.count() == 3  # two batches of two, then one that finds nothing left


def test_a_second_retag_changes_nothing(untagged, run_jobs):
    call_command("graph_retag_entities")
    run_jobs()
    first = tags_of(untagged)
    assert enrichment.retag() == {"memories": 3, "entity_tags": 0, "last": max(untagged)}
    assert tags_of(untagged) == first


def test_queueing_the_retag_twice_queues_one_job(untagged):
    call_command("graph_retag_entities")
    call_command("graph_retag_entities")
    assert ProcrastinateJob.objects.filter(task_name="graph.tasks.retag_entities").count() == 1


def test_a_memory_deleted_while_the_retag_runs_is_passed_over(untagged, alice_client, monkeypatch):
    caroline = untagged[0]
    read, go_on = threading.Event(), threading.Event()
    add_tags = Memory.objects.add_tags

    def paused(tags_by_id):
        read.set()
        assert go_on.wait(30)
        add_tags(tags_by_id)

    monkeypatch.setattr(Memory.objects, "add_tags", paused)
    worker, results = in_thread(enrichment.retag)
    try:
        assert read.wait(30)
        response = alice_client.delete(f"/memory/{caroline}")  # the retag read it but holds no lock
    finally:
        go_on.set()
        worker.join(30)
    assert response.status_code in (200, 204), response.content
    assert [result["memories"] for result in results] == [3]
    assert not Memory.objects.filter(pk=caroline).exists()
    assert tags_of(untagged[1:]) == [["chat", "entity:berlin", "entity:priya"], ["chat"]]
