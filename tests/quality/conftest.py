import numpy as np
import pytest

from memories import embeddings


@pytest.fixture
def embed():
    """The service's own embedding provider, as a numpy vector."""
    return lambda text: np.asarray(embeddings.embed(text))


def assert_envelope(response, code, message=None):
    assert response.status_code == code, response.content
    body = response.json()
    assert body["status"] == "error"
    assert body["code"] == code
    if message is not None:
        assert body["message"] == message
