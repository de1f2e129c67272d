import pytest
from rest_framework.test import APIClient

from memsite.models import ApiToken
from tests.factories import UserFactory


def client_for(user):
    _, plain = ApiToken.issue(user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {plain}")
    return client


@pytest.fixture
def alice(db):
    return UserFactory(username="alice")


@pytest.fixture
def bob(db):
    return UserFactory(username="bob")


@pytest.fixture
def staff(db):
    return UserFactory(username="curator", is_staff=True)


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
