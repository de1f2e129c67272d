import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from memsite.models import ApiToken


def make_user(username, **extra):
    return get_user_model().objects.create_user(username=username, password="pw", **extra)


def client_for(user):
    _, plain = ApiToken.issue(user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {plain}")
    return client


@pytest.fixture
def alice(db):
    return make_user("alice")


@pytest.fixture
def bob(db):
    return make_user("bob")


@pytest.fixture
def staff(db):
    return make_user("curator", is_staff=True)


@pytest.fixture
def alice_client(alice):
    return client_for(alice)


@pytest.fixture
def bob_client(bob):
    return client_for(bob)


@pytest.fixture
def staff_client(staff):
    return client_for(staff)


@pytest.fixture
def anon_client():
    return APIClient()
