"""GET /metrics: Prometheus text for staff or the metrics token, with request and queue figures."""

import pytest
from django.test import Client

from memsite import jobs
from quality import tasks

pytestmark = pytest.mark.django_db
TOKEN = "scrape-me-0123456789"


def test_metrics_need_staff_or_the_token(anon_client, alice, settings):
    settings.METRICS_TOKEN = TOKEN
    assert anon_client.get("/metrics").status_code == 401
    assert anon_client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 401
    member = Client()
    member.force_login(alice)
    response = member.get("/metrics")
    assert response.status_code == 403
    assert response.json()["status"] == "error"
    assert anon_client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 200


def test_metrics_show_request_latency_by_view_and_the_queue(anon_client, staff, alice):
    anon_client.get("/health")
    anon_client.get("/memory/not-a-uuid")
    jobs.defer(tasks.evaluate_quality, owner_id=alice.pk)
    curator = Client()
    curator.force_login(staff)

    text = curator.get("/metrics").content.decode()

    assert 'django_http_requests_latency_seconds_by_view_method_count{method="GET",view="health"}' in text
    assert 'django_http_responses_total_by_status_total{status="401"}' in text
    assert 'django_db_execute_total{alias="default",vendor="postgresql"}' in text
    assert 'memsite_jobs{queue="maintenance",status="todo",task="quality.tasks.evaluate_quality"} 1.0' in text
    assert "memsite_jobs_waiting 1.0" in text
    assert "memsite_worker_heartbeat_age_seconds NaN" in text
