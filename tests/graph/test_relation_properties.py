import json

import pytest

from graph.models import Association

pytestmark = pytest.mark.django_db

UNSTORABLE = "'reason' contains characters that cannot be stored"
TEXT_RULE = "must be text of at most 1000 characters, a number, a boolean, or a list of at most 100 of those"


def post(client, data):
    """POST as escaped JSON, so lone surrogates reach the server as a client would send them."""
    return client.post("/associate", json.dumps(data), content_type="application/json")


def body(pair, **properties):
    first, second = pair
    return {"memory1_id": str(first.pk), "memory2_id": str(second.pk), **properties}


@pytest.mark.parametrize(
    ("properties", "message"),
    [
        ({"type": "PREFERS_OVER", "reason": "a\u0000b"}, UNSTORABLE),
        ({"type": "PREFERS_OVER", "reason": "\ud800"}, UNSTORABLE),
        ({"type": "PREFERS_OVER", "reason": {"\u0000": 1}}, f"'reason' {TEXT_RULE}"),
        ({"type": "PREFERS_OVER", "reason": "x" * 1_000_001}, f"'reason' {TEXT_RULE}"),
        ({"type": "PREFERS_OVER", "reason": 1e308}, "'reason' must not contain numbers beyond ±1e+15"),
        ({"type": "PREFERS_OVER", "context": 2**70}, "'context' must not contain numbers beyond ±1e+15"),
        ({"type": "EVOLVED_INTO", "confidence": 1e19}, "'confidence' must be between 0 and 1"),
        ({"type": "EVOLVED_INTO", "confidence": "high"}, "'confidence' must be a number"),
        ({"type": "INVALIDATED_BY", "timestamp": "9999-12-31T23:59:59-14:00"},
         "'timestamp' must be between 1000-01-01 and 9000-12-31 (UTC)"),
    ],
)
def test_a_bad_relation_property_is_refused_naming_it(alice_client, pair, properties, message):
    response = post(alice_client, body(pair, **properties))

    assert response.status_code == 400
    assert response.json()["message"] == message
    assert not Association.objects.exists()


def test_a_bad_property_fails_only_its_batch_item(alice_client, pair, graph_agrees):
    good = body(pair, type="PREFERS_OVER", reason="ACID")
    bad = body(pair, type="EVOLVED_INTO", confidence=1e19)
    response = post(alice_client, {"associations": [good, bad]})

    assert response.status_code == 207
    assert response.json()["failed"] == [{"index": 1, "reason": "'confidence' must be between 0 and 1"}]
    assert Association.objects.get().properties == {"reason": "ACID"}
    graph_agrees()


def test_valid_relation_properties_are_stored(alice_client, pair, graph_agrees):
    response = post(alice_client, body(pair, type="REINFORCES", observations=["bench run", 3]))

    assert response.status_code == 201
    assert Association.objects.get().properties == {"observations": ["bench run", 3]}
    graph_agrees()
