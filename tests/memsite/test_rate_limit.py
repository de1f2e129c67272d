"""The request limit holds over any 60 seconds and under concurrency: a GCRA kept by one atomic
upsert in PostgreSQL."""

import ipaddress
import math
import threading
import time
from functools import partial

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import path
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from memsite.api.throttling import EXPIRED_PER_REQUEST, burst
from memsite.models import RateBucket
from tests.conftest import at_once, client_for

LIMIT = 40
CLIENTS = 16
REQUESTS_EACH = 8


class Ping(APIView):
    def get(self, request):
        return Response({"ok": True})


class OpenPing(Ping):
    permission_classes = [AllowAny]


urlpatterns = [path("ping", Ping.as_view()), path("open", OpenPing.as_view())]
pytestmark = pytest.mark.urls("tests.memsite.test_rate_limit")


def most_allowed(limit, seconds):
    """What the limit lets through in `seconds`: the burst, then one request per 60/limit s."""
    return burst(limit) + math.floor(seconds * limit / 60) + 1


@pytest.mark.django_db(transaction=True)
def test_sixteen_concurrent_clients_on_one_user_pass_the_burst_and_no_more_than_the_rate(alice, settings):
    settings.THROTTLE_USER_PER_MINUTE = LIMIT
    clients = [client_for(alice) for _ in range(CLIENTS)]

    def hammer(client):
        return [client.get("/ping") for _ in range(REQUESTS_EACH)]

    started = time.monotonic()
    sent = at_once([partial(hammer, client) for client in clients])
    elapsed = time.monotonic() - started
    responses = [response for each in sent for response in each]

    passed = [response for response in responses if response.status_code == 200]
    refused = [response for response in responses if response.status_code == 429]
    assert len(passed) + len(refused) == CLIENTS * REQUESTS_EACH
    assert burst(LIMIT) <= len(passed) <= most_allowed(LIMIT, elapsed)
    assert all(int(response["Retry-After"]) >= 1 for response in refused)
    assert refused[0].json() == {
        "status": "error",
        "code": 429,
        "message": refused[0].json()["message"],
    }


@pytest.mark.django_db(transaction=True)
def test_threads_straddling_a_minute_boundary_pass_at_most_the_limit_and_the_burst(alice, settings):
    """A fixed clock-minute window let a burst spend two minutes' allowance across the turn."""
    limit = 60
    settings.THROTTLE_USER_PER_MINUTE = limit
    clients = [client_for(alice) for _ in range(8)]
    boundary = math.ceil(time.time() / 60) * 60
    if boundary - time.time() < 2:
        boundary += 60
    time.sleep(boundary - 1.5 - time.time())
    stop = boundary + 1.5
    statuses = []

    def hammer(client):
        while time.time() < stop:
            statuses.append(client.get("/ping").status_code)
        connection.close()

    started = time.monotonic()
    threads = [threading.Thread(target=hammer, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started

    assert set(statuses) == {200, 429}
    assert len(statuses) > 4 * most_allowed(limit, elapsed)
    assert statuses.count(200) <= most_allowed(limit, elapsed)


@pytest.mark.django_db
def test_retry_after_is_the_exact_wait_for_the_next_allowance(alice, settings):
    settings.THROTTLE_USER_PER_MINUTE = 2  # one request per 30 s, a burst of one
    client = client_for(alice)

    first, second = client.get("/ping"), client.get("/ping")

    assert first.status_code == 200
    assert second.status_code == 429
    assert second["Retry-After"] == "30"


@pytest.mark.django_db(transaction=True)
def test_a_client_that_waits_its_retry_after_passes_again(alice, settings):
    settings.THROTTLE_USER_PER_MINUTE = 60  # one request a second, a burst of six
    client = client_for(alice)
    statuses = [client.get("/ping").status_code for _ in range(burst(60) + 1)]
    refused = client.get("/ping")

    time.sleep(int(refused["Retry-After"]))

    assert statuses == [200] * burst(60) + [429]
    assert refused["Retry-After"] == "1"
    assert client.get("/ping").status_code == 200


@pytest.mark.django_db
def test_another_user_keeps_an_own_allowance(alice, bob, settings):
    settings.THROTTLE_USER_PER_MINUTE = 2
    alice_client, bob_client = client_for(alice), client_for(bob)
    statuses = [alice_client.get("/ping").status_code for _ in range(3)]

    assert statuses.count(429) >= 1
    assert bob_client.get("/ping").status_code == 200


@pytest.mark.django_db
def test_anonymous_requests_have_their_own_limit(anon_client, settings):
    settings.THROTTLE_ANON_PER_MINUTE = 1

    statuses = [anon_client.get("/open").status_code for _ in range(3)]

    assert statuses == [200, 429, 429]


@pytest.mark.django_db
def test_a_rotating_forwarded_for_header_does_not_renew_the_anonymous_limit(anon_client, settings):
    settings.THROTTLE_ANON_PER_MINUTE = 1

    statuses = [
        anon_client.get("/open", HTTP_X_FORWARDED_FOR=f"203.0.113.{n}").status_code for n in range(12)
    ]

    assert statuses == [200] + [429] * 11


@pytest.mark.django_db
def test_the_forwarded_for_header_of_a_trusted_proxy_names_the_client(anon_client, settings):
    settings.THROTTLE_ANON_PER_MINUTE = 1
    settings.TRUSTED_PROXIES = [ipaddress.ip_network("127.0.0.0/8")]

    statuses = [
        anon_client.get("/open", HTTP_X_FORWARDED_FOR=f"203.0.113.{n}", REMOTE_ADDR="127.0.0.1").status_code
        for n in range(3)
    ]
    again = anon_client.get("/open", HTTP_X_FORWARDED_FOR="203.0.113.0", REMOTE_ADDR="127.0.0.1")

    assert statuses == [200, 200, 200]
    assert again.status_code == 429
    assert RateBucket.objects.filter(scope="anon", ident="ip:203.0.113.1").exists()


@pytest.mark.django_db
def test_each_request_removes_a_bounded_number_of_expired_allowances(alice):
    RateBucket.objects.bulk_create(
        RateBucket(scope="anon", ident=f"ip:10.0.0.{n}", tat=60 * n) for n in range(EXPIRED_PER_REQUEST + 5)
    )
    RateBucket.objects.create(scope="anon", ident="ip:10.0.1.1", tat=time.time() + 600)
    client = client_for(alice)

    with CaptureQueriesContext(connection) as queries:
        client.get("/ping")

    assert sum(RateBucket._meta.db_table in query["sql"] for query in queries.captured_queries) == 1
    assert RateBucket.objects.filter(tat__lt=60 * 1000).count() == 5
    assert RateBucket.objects.filter(ident="ip:10.0.1.1").exists()
    assert RateBucket.objects.filter(ident=f"user:{alice.pk}").count() == 1


@pytest.mark.django_db
def test_the_allowances_table_writes_no_wal():
    with connection.cursor() as cursor:
        cursor.execute("SELECT relpersistence FROM pg_class WHERE relname = %s", [RateBucket._meta.db_table])
        (persistence,) = cursor.fetchone()

    assert persistence == "u"
