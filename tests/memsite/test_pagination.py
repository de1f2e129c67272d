import pytest

pytestmark = pytest.mark.django_db

LISTS = ["/api/quality/low", "/api/quality/improvements", "/api/quality/inconsistencies"]
LISTS += ["/api/quality/boosts"]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"offset": "99999999999999999999999"}, "'offset' must be an integer between 0 and 1000000"),
        ({"offset": "null"}, "'offset' must be an integer between 0 and 1000000"),
        ({"offset": "-1"}, "'offset' must be an integer between 0 and 1000000"),
        ({"limit": "false"}, "'limit' must be an integer between 1 and 500"),
        ({"limit": "0"}, "'limit' must be an integer between 1 and 500"),
        ({"limit": "501"}, "'limit' must be an integer between 1 and 500"),
    ],
)
def test_every_list_refuses_a_bad_page_the_same_way(alice_client, staff_client, params, message):
    lists = [(alice_client, url, {}) for url in LISTS]
    lists += [(alice_client, "/memory/by-tag", {"tags": "a"}), (staff_client, "/api/consolidation/runs", {})]
    for client, url, extra in lists:
        response = client.get(url, {**extra, **params})
        assert (url, response.status_code, response.json()["message"]) == (url, 400, message)


def test_every_list_accepts_the_largest_limit(alice_client, staff_client):
    for url in LISTS:
        assert alice_client.get(url, {"limit": 500}).status_code == 200
    assert alice_client.get("/memory/by-tag", {"tags": "a", "limit": 500}).status_code == 200
    assert staff_client.get("/api/consolidation/runs", {"limit": 500}).status_code == 200
