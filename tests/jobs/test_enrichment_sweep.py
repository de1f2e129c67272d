"""The periodic sweep re-queues memories whose enrichment is still pending (e.g. a lost job)."""

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from graph import tasks
from graph.models import Enrichment
from memsite import jobs

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_sweep_requeues_a_memory_left_pending_and_a_worker_enriches_it(alice_client, run_jobs, settings):
    settings.ENRICHMENT_TAKE_PENDING = 0  # the re-queued job enriches what the sweep gave it, no more
    stale = alice_client.post("/memory", {"content": "Maria visited Porto last spring"}, format="json")
    fresh = alice_client.post("/memory", {"content": "Tom bought a bike in Ghent"}, format="json")
    stale_id, fresh_id = stale.json()["memory_id"], fresh.json()["memory_id"]
    with connection.cursor() as cursor:  # both jobs are lost; one memory has waited for long
        cursor.execute("TRUNCATE procrastinate_jobs CASCADE")
    Enrichment.objects.filter(memory_id=stale_id).update(updated_at=timezone.now() - timedelta(hours=1))
    status = alice_client.get("/enrichment/status").json()
    assert status["pending_count"] == 2
    assert status["lag_seconds"] >= 3600

    jobs.defer(tasks.sweep_pending_enrichment, timestamp=0)
    run_jobs()

    assert Enrichment.objects.get(memory_id=stale_id).status == "done"
    assert Enrichment.objects.get(memory_id=fresh_id).status == "pending"
