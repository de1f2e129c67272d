"""/health reports the queue: jobs waiting and the age of the last worker heartbeat."""

import pytest
from django.db import connection

from memsite import jobs
from quality import tasks

pytestmark = pytest.mark.django_db


def heartbeat(seconds_ago):
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO procrastinate_workers (last_heartbeat) VALUES (now() - make_interval(secs => %s))",
            [seconds_ago],
        )


def test_health_is_degraded_with_an_empty_queue_and_no_worker(anon_client):
    response = anon_client.get("/health")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded"
    assert body["queue"] == {"waiting": 0, "heartbeat_age_seconds": None}


def test_health_is_degraded_when_the_only_worker_stopped_sending_heartbeats(anon_client, settings):
    settings.WORKER_STALE_SECONDS = 60
    heartbeat(seconds_ago=90)
    body = anon_client.get("/health").json()
    assert body["status"] == "degraded"
    assert body["queue"]["waiting"] == 0


def test_health_is_ok_with_an_empty_queue_and_a_live_worker(anon_client):
    heartbeat(seconds_ago=3)
    body = anon_client.get("/health").json()
    assert body["status"] == "ok"
    assert body["queue"]["waiting"] == 0


def test_health_is_degraded_when_jobs_wait_and_no_worker_was_seen(anon_client, alice):
    jobs.defer(tasks.evaluate_quality, owner_id=alice.pk)
    response = anon_client.get("/health")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded"
    assert body["queue"] == {"waiting": 1, "heartbeat_age_seconds": None}


def test_health_is_degraded_when_the_last_heartbeat_is_too_old(anon_client, alice, settings):
    settings.WORKER_STALE_SECONDS = 180
    heartbeat(seconds_ago=600)
    jobs.defer(tasks.evaluate_quality, owner_id=alice.pk)
    body = anon_client.get("/health").json()
    assert body["status"] == "degraded"
    assert body["queue"]["heartbeat_age_seconds"] >= 600


def test_health_is_ok_while_a_live_worker_has_jobs_to_do(anon_client, alice):
    heartbeat(seconds_ago=5)
    jobs.defer(tasks.evaluate_quality, owner_id=alice.pk)
    body = anon_client.get("/health").json()
    assert body["status"] == "ok"
    assert body["queue"]["waiting"] == 1
    assert 5 <= body["queue"]["heartbeat_age_seconds"] < 60
