"""Validity of memories: supersession by INVALIDATED_BY associations, however they are written."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from graph import age
from graph.models import Association
from memories.models import Memory
from tests.conftest import at_once, client_for
from tests.factories import AssociationFactory, MemoryFactory


def stored(client, content, **fields):
    response = client.post("/memory", {"content": content, **fields}, format="json")
    assert response.status_code == 201, response.json()
    return Memory.objects.get(pk=response.json()["memory_id"])


def edges(memory):
    return list(Association.objects.filter(source=memory, relation_type="INVALIDATED_BY"))


def test_a_memory_is_valid_from_its_timestamp_until_something_replaces_it(alice_client):
    memory = stored(alice_client, "Ines lives in Ghent.", timestamp="2024-03-01T10:00:00Z")
    data = alice_client.get(f"/memory/{memory.pk}").json()["memory"]
    assert data["valid_from"] == "2024-03-01T10:00:00Z"
    assert data["valid_until"] is None
    assert data["superseded_by"] is None


def test_a_store_that_supersedes_a_memory_ends_its_validity_where_the_new_one_begins(alice_client):
    older = stored(alice_client, "Ines lives in Ghent.", timestamp="2024-03-01T10:00:00Z")
    newer = stored(
        alice_client,
        "Ines has been living in Antwerp since April.",
        timestamp="2024-05-10T10:00:00Z",
        valid_from="2024-04-01T00:00:00Z",
        supersedes=[str(older.pk)],
    )
    older.refresh_from_db()
    assert older.superseded_by_id == newer.pk
    assert older.valid_until == newer.valid_from
    (edge,) = edges(older)
    assert (edge.target_id, edge.origin) == (newer.pk, "user")
    assert age.differences() == []
    shown = alice_client.get(f"/memory/{older.pk}").json()["memory"]
    assert shown["superseded_by"] == str(newer.pk)
    assert shown["valid_until"] == "2024-04-01T00:00:00Z"


def test_a_superseded_memory_has_no_timeliness_but_keeps_its_consistency(alice_client):
    older = stored(alice_client, "The standup is at 9:30.")
    before = Memory.objects.get(pk=older.pk)
    stored(alice_client, "The standup moved to 10:00.", supersedes=[str(older.pk)])
    older.refresh_from_db()
    assert before.quality_timeliness > 0.9
    assert older.quality_timeliness == 0
    assert older.quality_consistency == before.quality_consistency


@pytest.mark.parametrize(
    ("supersedes", "message"),
    [
        (["not-an-id"], "'supersedes' must hold memory ids: 'not-an-id' is not one"),
        ([], "'supersedes' must be a list of 1 to 20 memory ids"),
        ([str(uuid.uuid4()) for _ in range(21)], "'supersedes' must be a list of 1 to 20 memory ids"),
        ("abc", "'supersedes' must be a list of 1 to 20 memory ids"),
    ],
)
def test_a_malformed_supersedes_is_a_400_and_stores_nothing(alice_client, supersedes, message):
    response = alice_client.post("/memory", {"content": "x", "supersedes": supersedes}, format="json")
    assert response.status_code == 400
    assert response.json()["message"] == message
    assert not Memory.objects.exists()


def test_supersedes_naming_anything_but_your_own_live_memory_is_a_400_naming_it(alice, bob, alice_client):
    foreign = MemoryFactory(owner=bob)
    archived = MemoryFactory(owner=alice, archived_at=timezone.now())
    missing = uuid.uuid4()
    for target in (foreign.pk, archived.pk, missing):
        response = alice_client.post(
            "/memory", {"content": "new", "supersedes": [str(target)]}, format="json"
        )
        assert response.status_code == 400
        assert (
            response.json()["message"]
            == f"'supersedes' names {target}, which is not one of your live memories"
        )
    assert not Memory.objects.filter(content="new").exists()
    foreign.refresh_from_db()
    assert foreign.superseded_by_id is None


def test_deleting_the_association_makes_the_older_memory_valid_again(alice_client):
    older = stored(alice_client, "The VPN gateway is vpn1.")
    stored(alice_client, "The VPN gateway is now vpn2.", supersedes=[str(older.pk)])
    (edge,) = edges(older)
    assert alice_client.delete(f"/association/{edge.pk}").status_code == 200
    older.refresh_from_db()
    assert (older.superseded_by_id, older.valid_until) == (None, None)
    assert older.quality_timeliness > 0.9


def test_deleting_the_newer_memory_makes_the_older_memory_valid_again(alice_client):
    older = stored(alice_client, "Billing runs on Postgres 14.")
    newer = stored(alice_client, "Billing was upgraded to Postgres 16.", supersedes=[str(older.pk)])
    assert alice_client.delete(f"/memory/{newer.pk}").status_code == 200
    older.refresh_from_db()
    assert (older.superseded_by_id, older.valid_until) == (None, None)
    assert older.quality_timeliness > 0.9


def test_the_earliest_of_two_replacements_ends_the_validity(alice):
    older = MemoryFactory(owner=alice, days_old=30)
    late, early = MemoryFactory(owner=alice, days_old=1), MemoryFactory(owner=alice, days_old=10)
    AssociationFactory(source=older, target=late, relation_type="INVALIDATED_BY")
    AssociationFactory(source=older, target=early, relation_type="INVALIDATED_BY")
    older.refresh_from_db()
    assert (older.superseded_by_id, older.valid_until) == (early.pk, early.valid_from)
    Memory.objects.filter(pk=early.pk).delete()
    older.refresh_from_db()
    assert (older.superseded_by_id, older.valid_until) == (late.pk, late.valid_from)


def test_moving_the_newer_memorys_valid_from_moves_the_end_of_the_older_one(alice_client):
    older = stored(alice_client, "The office opens at 8.", timestamp="2024-01-01T00:00:00Z")
    newer = stored(alice_client, "The office opens at 9 now.", supersedes=[str(older.pk)])
    response = alice_client.patch(
        f"/memory/{newer.pk}", {"valid_from": "2024-06-01T00:00:00Z"}, format="json"
    )
    assert response.status_code == 200
    older.refresh_from_db()
    assert older.valid_until.isoformat() == "2024-06-01T00:00:00+00:00"


def test_a_replacement_valid_before_the_older_memory_leaves_it_never_valid(alice_client):
    older = stored(alice_client, "The rate is 4%.", timestamp="2024-06-01T00:00:00Z")
    stored(alice_client, "The rate is 5%.", timestamp="2024-01-01T00:00:00Z", supersedes=[str(older.pk)])
    older.refresh_from_db()
    assert older.valid_until == older.valid_from


def test_a_stale_write_of_the_validity_columns_is_corrected_by_the_database(alice_client):
    older = stored(alice_client, "Lunch is at noon.")
    newer = stored(alice_client, "Lunch is at one now.", supersedes=[str(older.pk)])
    Memory.objects.filter(pk=older.pk).update(superseded_by=None, valid_until=None)
    older.refresh_from_db()
    assert older.superseded_by_id == newer.pk
    fresh = Memory.objects.get(pk=newer.pk)
    fresh.superseded_by_id = older.pk
    fresh.save()
    fresh.refresh_from_db()
    assert fresh.superseded_by_id is None


def test_a_chain_is_legal_and_a_cycle_is_refused(alice_client):
    first = stored(alice_client, "The team uses Jira.")
    second = stored(alice_client, "The team moved to Linear.", supersedes=[str(first.pk)])
    third = stored(alice_client, "The team now uses GitHub Projects.", supersedes=[str(second.pk)])
    for older in (first, second):
        older.refresh_from_db()
    assert (first.superseded_by_id, second.superseded_by_id) == (second.pk, third.pk)
    response = alice_client.post(
        "/associate",
        {"memory1_id": str(third.pk), "memory2_id": str(first.pk), "type": "INVALIDATED_BY"},
        format="json",
    )
    assert response.status_code == 409
    assert response.json()["message"] == (
        f"Memory {first.pk} is already superseded by memory {third.pk} (directly or through a chain), "
        "so it cannot supersede it"
    )
    assert not Association.objects.filter(source=third, relation_type="INVALIDATED_BY").exists()


@pytest.mark.django_db(transaction=True)
def test_two_racing_requests_cannot_close_a_cycle(alice):
    first, second = MemoryFactory(owner=alice), MemoryFactory(owner=alice)
    clients = [client_for(alice), client_for(alice)]

    def link(client, source, target):
        return lambda: (
            client.post(
                "/associate",
                {"memory1_id": str(source.pk), "memory2_id": str(target.pk), "type": "INVALIDATED_BY"},
                format="json",
            ).status_code
        )

    codes = at_once([link(clients[0], first, second), link(clients[1], second, first)])
    assert sorted(codes) == [201, 409]
    assert Association.objects.filter(relation_type="INVALIDATED_BY").count() == 1


def test_a_patch_may_not_make_a_memory_supersede_itself(alice_client):
    memory = stored(alice_client, "The deploy window is Tuesday.")
    response = alice_client.patch(f"/memory/{memory.pk}", {"supersedes": [str(memory.pk)]}, format="json")
    assert response.status_code == 400
    assert response.json()["message"] == "A memory cannot supersede itself"


def test_a_patch_can_supersede_older_memories(alice_client):
    older = stored(alice_client, "Backups run at 2am.")
    newer = stored(alice_client, "Backups run at 3am.")
    response = alice_client.patch(f"/memory/{newer.pk}", {"supersedes": [str(older.pk)]}, format="json")
    assert response.status_code == 200
    older.refresh_from_db()
    assert older.superseded_by_id == newer.pk


def test_a_batch_whose_items_supersede_each_other_chains_them(alice_client):
    response = alice_client.post(
        "/memory/batch",
        {
            "memories": [
                {"content": "The price is $10."},
                {"content": "The price went up to $12.", "supersedes": [0]},
                {"content": "The price is $15 from May.", "supersedes": [1]},
                {"content": "This names a later item.", "supersedes": [3]},
            ]
        },
        format="json",
    )
    assert response.status_code == 207
    body = response.json()
    assert body["failed"] == [
        {"index": 3, "reason": "'supersedes' index 3 is not an earlier stored item of this batch"}
    ]
    first, second, third = (Memory.objects.get(pk=item["memory_id"]) for item in body["succeeded"])
    assert (first.superseded_by_id, second.superseded_by_id, third.superseded_by_id) == (
        second.pk,
        third.pk,
        None,
    )


def test_a_batch_item_naming_a_failed_item_fails_alone(alice, alice_client):
    kept = MemoryFactory(owner=alice)
    response = alice_client.post(
        "/memory/batch",
        {
            "memories": [
                {"content": "ok", "supersedes": [str(uuid.uuid4())]},
                {"content": "names the failed one", "supersedes": [0]},
                {"content": "replaces a real one", "supersedes": [str(kept.pk)]},
            ]
        },
        format="json",
    )
    body = response.json()
    assert [entry["index"] for entry in body["failed"]] == [0, 1]
    kept.refresh_from_db()
    assert str(kept.superseded_by_id) == body["succeeded"][0]["memory_id"]


def test_another_owners_supersession_is_invisible_and_untouchable(alice, bob):
    older, newer = MemoryFactory(owner=bob), MemoryFactory(owner=bob)
    AssociationFactory(source=older, target=newer, relation_type="INVALIDATED_BY")
    client = client_for(alice)
    assert client.get(f"/memory/{older.pk}").status_code == 404
    response = client.post(
        "/associate",
        {"memory1_id": str(newer.pk), "memory2_id": str(older.pk), "type": "INVALIDATED_BY"},
        format="json",
    )
    assert response.status_code == 404


def test_migrated_memories_are_valid_from_their_created_at(alice):
    memory = MemoryFactory(owner=alice, days_old=40)
    assert memory.valid_from == memory.created_at
    assert memory.valid_from < timezone.now() - timedelta(days=39)
