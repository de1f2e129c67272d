from datetime import timedelta

import numpy as np
import pytest
from django.utils import timezone

from graph import age
from memories import embeddings
from memories.models import Memory
from memories.services import content_hash


@pytest.fixture
def embed():
    """The service's own embedding provider, as a numpy vector."""
    return lambda text: np.asarray(embeddings.embed(text))


@pytest.fixture
def make_memory(embed):
    """A memory row with a real embedding, written directly (no evaluation, no de-duplication)."""

    def create(owner, content, days_old=0, **fields):
        moment = timezone.now() - timedelta(days=days_old)
        memory = Memory.objects.create(
            owner=owner,
            content=content,
            content_hash=content_hash(content),
            embedding=embed(content),
            created_at=moment,
            updated_at=moment,
            provenance_updated_at=moment,
            **fields,
        )
        age.add_memory_vertices([memory])
        return memory

    return create


def store(client, content, **fields):
    """POST /memory through the API (embedded, evaluated) and return the new memory's id."""
    response = client.post("/memory", {"content": content, **fields}, format="json")
    assert response.status_code in (200, 201), response.json()
    return response.json()["memory_id"]


def assert_envelope(response, code, message=None):
    assert response.status_code == code, response.content
    body = response.json()
    assert body["status"] == "error"
    assert body["code"] == code
    if message is not None:
        assert body["message"] == message
