"""Repeated failed sign-ins lock that username out from that address (django-axes)."""

import ipaddress

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db
LOGIN = "/accounts/login/"


def sign_in(client, password, username="alice"):
    return client.post(LOGIN, {"username": username, "password": password})


def test_the_sixth_attempt_after_five_failures_is_refused_even_with_the_right_password(alice, settings):
    settings.AXES_FAILURE_LIMIT = 5
    client = Client()
    failures = [sign_in(client, f"guess-{n}").status_code for n in range(4)]

    fifth = sign_in(client, "guess-5")
    sixth = sign_in(client, "pw")

    assert failures == [200] * 4
    assert fifth.status_code == 429
    assert sixth.status_code == 429
    assert "_auth_user_id" not in client.session


def test_a_lockout_does_not_reach_other_usernames_or_addresses(alice, bob, settings):
    settings.AXES_FAILURE_LIMIT = 2
    for n in range(2):
        sign_in(Client(), f"guess-{n}")

    assert sign_in(Client(), "pw", username="bob").status_code == 302
    assert sign_in(Client(REMOTE_ADDR="10.0.0.9"), "pw").status_code == 302


def test_a_successful_sign_in_resets_the_count(alice, settings):
    settings.AXES_FAILURE_LIMIT = 3
    client = Client()
    sign_in(client, "wrong")
    sign_in(client, "wrong again")
    assert sign_in(client, "pw").status_code == 302

    assert sign_in(Client(), "wrong").status_code == 200
    assert sign_in(Client(), "wrong").status_code == 200


def test_a_rotating_forwarded_for_header_does_not_escape_the_lockout(alice, settings):
    settings.AXES_FAILURE_LIMIT = 5
    client = Client()
    statuses = [
        client.post(
            LOGIN, {"username": "alice", "password": f"guess-{n}"}, HTTP_X_FORWARDED_FOR=f"203.0.113.{n}"
        ).status_code
        for n in range(30)
    ]

    right = client.post(LOGIN, {"username": "alice", "password": "pw"}, HTTP_X_FORWARDED_FOR="198.51.100.7")

    assert statuses == [200] * 4 + [429] * 26
    assert right.status_code == 429
    assert "_auth_user_id" not in client.session


def test_a_locked_out_address_stays_locked_out_behind_a_forwarded_for_header(alice, settings):
    settings.AXES_FAILURE_LIMIT = 2
    for n in range(2):
        sign_in(Client(), f"guess-{n}")

    spoofed = Client(HTTP_X_FORWARDED_FOR="198.51.100.7")

    assert sign_in(spoofed, "pw").status_code == 429


def test_a_trusted_proxy_s_forwarded_for_header_names_the_address_locked_out(alice, settings):
    settings.AXES_FAILURE_LIMIT = 2
    settings.TRUSTED_PROXIES = [ipaddress.ip_network("127.0.0.1/32")]
    behind = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.7")
    for n in range(2):
        sign_in(behind, f"guess-{n}")

    elsewhere = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.8")

    assert sign_in(behind, "pw").status_code == 429
    assert sign_in(elsewhere, "pw").status_code == 302
