"""The request limit holds under concurrency: counted by one atomic upsert in PostgreSQL."""

import time
from functools import partial

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import path
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from memsite.api.throttling import EXPIRED_PER_REQUEST, UserRateThrottle
from memsite.models import RateCounter
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


def _windows_spanned(started, finished):
    window = UserRateThrottle.window_seconds
    return int(finished // window) - int(started // window) + 1


@pytest.mark.django_db(transaction=True)
def test_sixteen_concurrent_clients_on_one_user_pass_at_most_the_limit(alice, settings):
    settings.THROTTLE_USER_PER_MINUTE = LIMIT
    clients = [client_for(alice) for _ in range(CLIENTS)]

    def hammer(client):
        return [client.get("/ping") for _ in range(REQUESTS_EACH)]

    started = time.time()
    sent = at_once([partial(hammer, client) for client in clients])
    finished = time.time()
    responses = [response for each in sent for response in each]

    passed = [response for response in responses if response.status_code == 200]
    refused = [response for response in responses if response.status_code == 429]
    assert len(passed) + len(refused) == CLIENTS * REQUESTS_EACH
    assert LIMIT <= len(passed) <= LIMIT * _windows_spanned(started, finished)
    assert all(int(response["Retry-After"]) >= 1 for response in refused)
    assert refused[0].json() == {
        "status": "error",
        "code": 429,
        "message": refused[0].json()["message"],
    }


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

    assert 429 in statuses
    assert 200 not in statuses[2:]


@pytest.mark.django_db
def test_each_request_removes_a_bounded_number_of_expired_counters(alice):
    RateCounter.objects.bulk_create(
        RateCounter(scope="anon", ident=f"ip:10.0.0.{n}", window=60 * n, count=1)
        for n in range(EXPIRED_PER_REQUEST + 5)
    )

    client = client_for(alice)

    with CaptureQueriesContext(connection) as queries:
        client.get("/ping")

    assert sum(RateCounter._meta.db_table in query["sql"] for query in queries.captured_queries) == 1
    assert RateCounter.objects.filter(window__lt=60 * 1000).count() == 5
    assert RateCounter.objects.filter(ident=f"user:{alice.pk}").count() == 1
