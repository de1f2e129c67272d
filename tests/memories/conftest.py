import pytest

from tests.factories import MemoryFactory


def recall(client, **params):
    response = client.get("/recall", params)
    assert response.status_code == 200, response.json()
    return response.json()


def recalled_contents(client, **params):
    return [result["memory"]["content"] for result in recall(client, **params)["results"]]


@pytest.fixture
def alice_memory(alice):
    return str(
        MemoryFactory(owner=alice, content="Alice keeps her bicycle in the garden shed", tags=["home"]).pk
    )
