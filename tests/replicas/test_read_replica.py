"""Reads served by a real streaming replica, the user's own writes read from the primary, and
the fallback when the replica is down or lagging."""

import pytest
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from memories.models import Memory, PendingAccess
from tests.conftest import QUEUE_TRUNCATE
from tests.mcp.conftest import (
    call,
    calls,
    close_thread_connections,  # noqa: F401  (autouse: tool threads)
    token_for,
)
from tests.replicas.conftest import ALIAS, caught_up, embedded, on_replica

pytestmark = pytest.mark.django_db(transaction=True, databases=["default", ALIAS])


def store(client, content):
    response = client.post("/memory", {"content": content}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["memory_id"]


def health(client):
    """/health with no job waiting and a live worker, so its status speaks of the replica only."""
    with connection.cursor() as cursor:
        cursor.execute(QUEUE_TRUNCATE)
        cursor.execute("INSERT INTO procrastinate_workers (last_heartbeat) VALUES (now())")
    response = client.get("/health")
    assert response.status_code == 200
    return response.json()


def recalled(client, query):
    response = client.get("/recall", {"query": query})
    assert response.status_code == 200, response.json()
    return [result["memory"]["content"] for result in response.json()["results"]]


def test_recall_runs_on_the_replica_and_queues_its_accesses_on_the_primary(replica, alice_client):
    store(alice_client, "The boat is moored at pier seven")
    caught_up()
    with CaptureQueriesContext(connections[ALIAS]) as on_standby:
        assert recalled(alice_client, "where is the boat moored") == ["The boat is moored at pier seven"]
    assert any("ranked AS" in query["sql"] for query in on_standby.captured_queries)
    assert on_replica("SELECT pg_is_in_recovery()") is True
    assert PendingAccess.objects.count() == 1


def test_reads_show_the_replicas_state_until_it_replays_the_primarys(replay_paused, alice_client):
    store(alice_client, "The first boat is moored at pier seven")
    assert recalled(alice_client, "boat moored pier") == []
    on_replica("SELECT pg_wal_replay_resume()")
    caught_up()
    assert recalled(alice_client, "boat moored pier") == ["The first boat is moored at pier seven"]


def test_a_user_reads_their_own_store_from_the_primary_at_once(replay_paused, settings, alice_client):
    settings.REPLICA_PIN_SECONDS = 60
    memory_id = store(alice_client, "The spare tyre is in the garage loft")
    assert on_replica(f"SELECT count(*) FROM memories_memory WHERE id = '{memory_id}'") == 0
    assert recalled(alice_client, "spare tyre") == ["The spare tyre is in the garage loft"]
    assert alice_client.get(f"/memory/{memory_id}").status_code == 200


def test_graph_reads_come_from_the_replica(replica, alice_client):
    first = store(alice_client, "Sam plays the cello")
    second = store(alice_client, "Sam's cello teacher is Ms Ortiz")
    caught_up()
    on_replica("SELECT pg_wal_replay_pause()")
    linked = alice_client.post(
        "/associate",
        {"memory1_id": first, "memory2_id": second, "type": "RELATES_TO", "strength": 0.9},
        format="json",
    )
    assert linked.status_code == 201, linked.json()
    assert alice_client.get(f"/graph/neighbors/{first}").json()["count"] == 0
    on_replica("SELECT pg_wal_replay_resume()")
    caught_up()
    assert alice_client.get(f"/graph/neighbors/{first}").json()["count"] == 1


def test_a_dashboard_page_is_served_by_the_replica(replay_paused, curator, alice_client):
    store(alice_client, "The allotment key is with the neighbour")
    assert Memory.objects.count() == 1
    with CaptureQueriesContext(connections[ALIAS]) as on_standby:
        page = curator.get("/dashboard/memories/")
    assert page.status_code == 200
    assert "allotment key" not in page.content.decode()
    assert any("memories_memory" in query["sql"] for query in on_standby.captured_queries)
    on_replica("SELECT pg_wal_replay_resume()")
    caught_up()
    assert "allotment key" in curator.get("/dashboard/memories/").content.decode()


def test_a_lagging_replica_is_skipped_and_health_says_so(replay_paused, settings, alice_client, anon_client):
    settings.REPLICA_MAX_LAG_SECONDS = 0
    store(alice_client, "The fuse box is behind the coats")
    assert recalled(alice_client, "fuse box") == ["The fuse box is behind the coats"]
    report = health(anon_client)
    assert report["status"] == "degraded"
    (state,) = report["replicas"]
    assert (state["alias"], state["state"]) == (ALIAS, "lagging")
    assert state["lag_seconds"] > 0


def test_a_stopped_replica_is_skipped_and_health_says_so(replica, alice_client, anon_client):
    store(alice_client, "The water stopcock is under the sink")
    assert health(anon_client)["status"] == "ok"
    embedded("stop")
    try:
        with CaptureQueriesContext(connection) as on_primary:
            assert recalled(alice_client, "stopcock") == ["The water stopcock is under the sink"]
        assert any("ranked AS" in query["sql"] for query in on_primary.captured_queries)
        report = health(anon_client)
        assert report["status"] == "degraded"
        assert report["replicas"] == [{"alias": ALIAS, "state": "down", "lag_seconds": None}]
    finally:
        embedded("start")
    caught_up()
    assert health(anon_client)["status"] == "ok"


def test_a_recall_with_a_json_body_is_served_by_the_replica(replay_paused, alice_client):
    store(alice_client, "The ladder hangs in the shed")
    body = alice_client.post("/recall", {"query": "ladder"}, format="json")
    assert (body.status_code, body.json()["count"]) == (200, 0)
    assert recalled(alice_client, "ladder") == []


def test_an_mcp_recall_is_served_by_the_replica_and_an_mcp_store_pins_its_user(
    replay_paused, settings, alice, alice_client
):
    store(alice_client, "The ladder hangs in the shed")
    token = token_for(alice)
    assert call(token, "recall_memory", {"query": "ladder"}).structured_content["count"] == 0
    settings.REPLICA_PIN_SECONDS = 60
    stored, recall = calls(
        token,
        ("store_memory", {"content": "The hose reel is by the back door"}),
        ("recall_memory", {"query": "hose reel"}),
    )
    assert not stored.is_error
    contents = [result["memory"]["content"] for result in recall.structured_content["results"]]
    assert "The hose reel is by the back door" in contents
