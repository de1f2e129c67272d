import uuid

import pytest

from graph.models import AUTHORABLE_RELATIONS, Association
from tests.factories import MemoryFactory


@pytest.fixture
def trio(alice):
    return [
        MemoryFactory(owner=alice, content=f"Design note number {n} about the ingestion pipeline")
        for n in range(3)
    ]


def item(first, second, **extra):
    return {"memory1_id": str(first.pk), "memory2_id": str(second.pk), **extra}


def post(client, associations):
    return client.post("/associate", {"associations": associations}, format="json")


def test_a_batch_where_every_item_lands_answers_201(alice_client, trio, graph_agrees):
    a, b, c = trio
    response = post(
        alice_client,
        [item(a, b, type="LEADS_TO", strength=0.9), item(b, c, type="part_of", strength=0.8, role="step")],
    )
    assert response.status_code == 201
    ids = {(str(e.source_id), str(e.target_id)): e.pk for e in Association.objects.all()}
    assert [item.pop("association_id") for item in response.json()["succeeded"]] == [
        ids[(str(a.pk), str(b.pk))],
        ids[(str(b.pk), str(c.pk))],
    ]
    assert response.json() == {
        "status": "success",
        "created_count": 2,
        "failed_count": 0,
        "succeeded": [
            {
                "index": 0,
                "memory1_id": str(a.pk),
                "memory2_id": str(b.pk),
                "relation_type": "LEADS_TO",
                "strength": 0.9,
            },
            {
                "index": 1,
                "memory1_id": str(b.pk),
                "memory2_id": str(c.pk),
                "relation_type": "PART_OF",
                "strength": 0.8,
                "role": "step",
            },
        ],
        "failed": [],
        "summary": "2/2 associations created successfully",
    }
    assert Association.objects.count() == 2
    graph_agrees()


def test_a_batch_with_failures_answers_207_with_each_reason(alice_client, bob, trio, graph_agrees):
    a, b, c = trio
    foreign = MemoryFactory(owner=bob, content="Bob's unrelated memory")
    response = post(
        alice_client,
        [
            item(a, b),
            {"memory1_id": "nope", "memory2_id": str(b.pk)},
            {"memory1_id": str(a.pk), "memory2_id": 42},
            {"memory1_id": str(a.pk)},
            item(a, a),
            item(a, c, type="SIMILAR_TO"),
            item(a, foreign),
            {"memory1_id": str(a.pk), "memory2_id": str(uuid.uuid4())},
            "not an object",
        ],
    )
    assert response.status_code == 207
    body = response.json()
    assert body["status"] == "partial_success"
    assert (body["created_count"], body["failed_count"]) == (1, 8)
    assert body["summary"] == "1/9 associations created successfully"
    assert body["failed"] == [
        {"index": 1, "reason": "'memory1_id' must be a valid UUID"},
        {"index": 2, "reason": "'memory2_id' must be a valid UUID"},
        {"index": 3, "reason": "'memory1_id' and 'memory2_id' are required"},
        {"index": 4, "reason": "Cannot associate a memory with itself"},
        {"index": 5, "reason": f"Relation type must be one of {sorted(AUTHORABLE_RELATIONS)}"},
        {"index": 6, "reason": "One or both memories do not exist"},
        {"index": 7, "reason": "One or both memories do not exist"},
        {"index": 8, "reason": "Association must be an object"},
    ]
    assert Association.objects.count() == 1
    graph_agrees()


def test_an_all_invalid_batch_answers_207_with_nothing_created(alice_client):
    response = post(alice_client, [{"memory1_id": "x", "memory2_id": "y"}])
    assert response.status_code == 207
    assert response.json()["created_count"] == 0
    assert response.json()["summary"] == "0/1 associations created successfully"


@pytest.mark.parametrize(
    ("strength", "message"),
    [("high", "'importance' must be a number"), (2, "'importance' must be between 0 and 1")],
)
def test_a_bad_strength_anywhere_rejects_the_whole_batch_before_writing(
    alice_client, trio, strength, message
):
    a, b, c = trio
    response = post(alice_client, [item(a, b), item(b, c, strength=strength)])
    assert response.status_code == 400
    assert response.json() == {"status": "error", "code": 400, "message": message}
    assert not Association.objects.exists()


@pytest.mark.parametrize(
    ("size", "message"),
    [
        (0, "'associations' must be a non-empty array"),
        (501, "Batch size limit is 500 associations per request"),
    ],
)
def test_a_batch_must_hold_1_to_500_items(alice_client, size, message):
    pair = {"memory1_id": str(uuid.uuid4()), "memory2_id": str(uuid.uuid4())}
    response = post(alice_client, [pair] * size)
    assert response.status_code == 400
    assert response.json()["message"] == message


def test_a_batch_merges_repeated_and_existing_edges(alice_client, trio, graph_agrees):
    a, b, c = trio
    assert post(alice_client, [item(a, b, strength=0.2)]).status_code == 201
    response = post(alice_client, [item(a, b, strength=0.4), item(b, c), item(a, b, strength=0.7)])
    assert response.status_code == 201
    assert response.json()["created_count"] == 3
    assert Association.objects.count() == 2
    assert Association.objects.get(source=a, target=b).strength == 0.7
    graph_agrees()


def test_an_associations_value_that_is_not_a_list_is_a_single_request(alice_client):
    response = alice_client.post("/associate", {"associations": "many"}, format="json")
    assert response.status_code == 400
    assert response.json()["message"] == "'memory1_id' and 'memory2_id' are required"
