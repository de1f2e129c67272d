"""A deadlock or serialization failure is a lost race (retried, then 409), never an outage (503)."""

import pytest
from django.db import connection, transaction
from django.urls import path
from rest_framework.response import Response
from rest_framework.views import APIView

from memsite.db import WRITE_ATTEMPTS, retry_on_conflict
from memsite.errors import Conflict

DEADLOCK, SERIALIZATION_FAILURE = "40P01", "40001"


def raise_sqlstate(code):
    """Have PostgreSQL itself raise an error with this SQLSTATE."""
    with connection.cursor() as cursor:
        cursor.execute(f"DO $$ BEGIN RAISE EXCEPTION 'lost a race' USING ERRCODE = '{code}'; END $$")


class Deadlocked(APIView):
    def get(self, request):
        with transaction.atomic():
            raise_sqlstate(DEADLOCK)
        return Response({})


class Refused(APIView):
    def get(self, request):
        with transaction.atomic():
            raise_sqlstate("57P03")
        return Response({})


urlpatterns = [path("deadlocked", Deadlocked.as_view()), path("refused", Refused.as_view())]


@pytest.mark.django_db
@pytest.mark.urls("tests.memsite.test_database_conflicts")
def test_a_deadlock_reaching_a_view_answers_the_409_envelope_not_503(alice_client):
    response = alice_client.get("/deadlocked")

    assert response.status_code == 409
    assert response.json()["status"] == "error"
    assert "Database unavailable" not in response.json()["message"]


@pytest.mark.django_db
@pytest.mark.urls("tests.memsite.test_database_conflicts")
def test_a_server_refusing_connections_still_answers_503(alice_client):
    response = alice_client.get("/refused")

    assert response.status_code == 503
    assert response.json()["message"] == "Database unavailable: PostgreSQL cannot be reached"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("code", [DEADLOCK, SERIALIZATION_FAILURE])
def test_a_write_losing_a_race_is_retried_until_it_succeeds(code):
    calls = []

    @retry_on_conflict
    def write():
        calls.append(1)
        with transaction.atomic():
            if len(calls) < WRITE_ATTEMPTS:
                raise_sqlstate(code)
        return "done"

    assert write() == "done"
    assert len(calls) == WRITE_ATTEMPTS


@pytest.mark.django_db(transaction=True)
def test_a_write_that_keeps_losing_answers_409_after_bounded_attempts():
    calls = []

    @retry_on_conflict
    def write():
        calls.append(1)
        with transaction.atomic():
            raise_sqlstate(DEADLOCK)

    with pytest.raises(Conflict):
        write()

    assert len(calls) == WRITE_ATTEMPTS
