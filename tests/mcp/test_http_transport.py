import anyio
import pytest

from tests.mcp.conftest import asgi_http, call, calls

pytestmark = pytest.mark.django_db(transaction=True)
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
JSON_HEADERS = {"Accept": "application/json, text/event-stream"}


def post_mcp(headers, message=INITIALIZE):
    async def main():
        async with asgi_http() as http:
            return await http.post("/mcp", json=message, headers={**JSON_HEADERS, **headers})

    return anyio.run(main)


def test_mcp_without_a_token_answers_401_with_the_envelope():
    response = post_mcp({})
    assert response.status_code == 401
    assert response.json() == {
        "status": "error",
        "code": 401,
        "message": "Authentication credentials were not provided.",
    }
    assert response.headers["www-authenticate"] == 'Bearer realm="memsite"'


def test_mcp_with_a_wrong_token_answers_401():
    response = post_mcp({"Authorization": "Bearer abc.def"})
    assert response.status_code == 401
    assert response.json()["message"] == "Invalid API token"


def test_mcp_accepts_the_token_as_x_api_key(alice_token):
    response = post_mcp({"X-API-Key": alice_token})
    assert response.status_code == 200
    assert response.json()["result"]["serverInfo"]["name"] == "memsite"


@pytest.mark.parametrize("request_id", [{"a": 1}, [1], True, None, 1.5])
def test_a_request_whose_id_is_not_a_string_or_integer_is_a_jsonrpc_error(alice_token, request_id):
    for message in ({**INITIALIZE, "id": request_id}, [{**INITIALIZE, "id": request_id}]):
        response = post_mcp({"Authorization": f"Bearer {alice_token}"}, message)
        assert response.status_code == 400
        assert response.json()["error"]["code"] == -32600
        assert "'id' must be a string or an integer" in response.json()["error"]["message"]


def test_mcp_refuses_a_foreign_host(alice_token):
    response = post_mcp({"Authorization": f"Bearer {alice_token}", "Host": "evil.example"})
    assert response.status_code == 421


def test_sdk_client_works_over_streamable_http(alice_token, live_worker):
    result = call(alice_token, "check_health")
    assert not result.is_error
    assert result.structured_content["database"] == "ok"
    assert result.content[0].text == "ok: database ok, pgvector ok, AGE ok"


def django_get(path, headers=None):
    async def main():
        async with asgi_http(headers) as http:
            return await http.get(path)

    return anyio.run(main)


def test_django_pages_admin_static_and_rest_are_served_beside_mcp(alice_token, live_worker):
    assert django_get("/health").json()["status"] == "ok"
    assert django_get("/admin/login/").status_code == 200
    assert django_get("/accounts/login/").status_code == 200
    assert django_get("/dashboard/").status_code == 302
    assert django_get("/static/vendor/plotly.min.js").status_code == 200
    rest = django_get("/recall?query=anything", {"Authorization": f"Bearer {alice_token}"})
    assert rest.status_code == 200
    assert rest.json()["count"] == 0
    assert django_get("/recall").status_code == 401


def test_tool_calls_share_the_rest_request_budget(settings, alice_token):
    settings.THROTTLE_USER_PER_MINUTE = 30  # a burst of three, then one every two seconds
    rest = django_get("/recall?query=x", {"Authorization": f"Bearer {alice_token}"})
    assert rest.status_code == 200
    health = ("check_health", {})
    allowed, throttled = calls(alice_token, health, health, health)[1:]
    assert not allowed.is_error
    assert throttled.structured_content["code"] == 429
    assert throttled.content[0].text.startswith("Request was throttled.")
