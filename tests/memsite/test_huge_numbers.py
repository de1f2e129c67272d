"""A JSON integer may have any number of digits: each one is range-checked as it is, never converted
to a float first (which overflows), so a number too large is a 400 naming its field."""

import json

import pytest

from graph.models import Association
from memories.models import Memory
from tests.factories import MemoryFactory

pytestmark = pytest.mark.django_db

BIG = 10**309  # 310 digits: beyond any 64-bit float
BEYOND_FLOAT = "must not contain numbers beyond ±1.8e+308"


def post(client, path, data):
    return client.post(path, json.dumps(data), content_type="application/json")


def test_a_310_digit_integer_in_metadata_is_a_400_naming_metadata(alice_client):
    response = post(alice_client, "/memory", {"content": "x", "metadata": {"y": BIG}})

    assert response.status_code == 400
    assert response.json()["message"] == f"'metadata' {BEYOND_FLOAT}"
    assert not Memory.objects.exists()


def test_a_310_digit_integer_in_a_changed_memorys_metadata_changes_nothing(alice_client, alice):
    memory = MemoryFactory(owner=alice, metadata={"y": 1})

    response = alice_client.patch(
        f"/memory/{memory.pk}", json.dumps({"metadata": {"y": [BIG]}}), content_type="application/json"
    )

    assert response.status_code == 400
    assert response.json()["message"] == f"'metadata' {BEYOND_FLOAT}"
    memory.refresh_from_db()
    assert memory.metadata == {"y": 1}


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("importance", BIG, "'importance' must be between 0 and 1"),
        ("importance", -BIG, "'importance' must be between 0 and 1"),
        ("metadata", {"deep": {"er": -BIG}}, f"'metadata' {BEYOND_FLOAT}"),
    ],
)
def test_a_huge_integer_fails_only_its_batch_item(alice_client, field, value, message):
    items = [{"content": "fine"}, {"content": "poison", field: value}]

    response = post(alice_client, "/memory/batch", {"memories": items})

    assert response.status_code == 207
    assert response.json()["failed"] == [{"index": 1, "reason": message}]
    assert list(Memory.objects.values_list("content", flat=True)) == ["fine"]


@pytest.mark.parametrize(
    ("properties", "message"),
    [
        ({"type": "PREFERS_OVER", "reason": BIG}, "'reason' must not contain numbers beyond ±1e+15"),
        ({"type": "PART_OF", "role": [BIG]}, "'role' must not contain numbers beyond ±1e+15"),
        ({"type": "EVOLVED_INTO", "confidence": BIG}, "'confidence' must be between 0 and 1"),
        ({"strength": BIG}, "'importance' must be between 0 and 1"),
        ({"strength": -BIG}, "'importance' must be between 0 and 1"),
    ],
)
def test_a_huge_integer_in_an_association_is_a_400_naming_its_field(alice_client, alice, properties, message):
    first, second = MemoryFactory.create_batch(2, owner=alice)
    body = {"memory1_id": str(first.pk), "memory2_id": str(second.pk), **properties}

    response = post(alice_client, "/associate", body)

    assert response.status_code == 400
    assert response.json()["message"] == message
    assert not Association.objects.exists()


def test_the_largest_float_is_still_stored(alice_client):
    response = post(alice_client, "/memory", {"content": "x", "metadata": {"y": 10**308}})

    assert response.status_code == 201
    assert Memory.objects.get().metadata == {"y": 10**308}
