import pytest


def store(client, content, **fields):
    """POST /memory and return the response, asserting nothing."""
    return client.post("/memory", {"content": content, **fields}, format="json")


def stored_id(client, content, **fields):
    response = store(client, content, **fields)
    assert response.status_code in (200, 201), response.json()
    return response.json()["memory_id"]


def recall(client, **params):
    response = client.get("/recall", params)
    assert response.status_code == 200, response.json()
    return response.json()


def recalled_contents(client, **params):
    return [result["memory"]["content"] for result in recall(client, **params)["results"]]


@pytest.fixture
def alice_memory(alice_client):
    return stored_id(alice_client, "Alice keeps her bicycle in the garden shed", tags=["home"])
