import json

import pytest

from memories.models import Memory

pytestmark = pytest.mark.django_db

VALID_TYPES = "Context, Decision, Habit, Insight, Memory, Pattern, Preference, Style"


def error(response):
    body = response.json()
    assert body["status"] == "error"
    assert body["code"] == response.status_code
    return response.status_code, body["message"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "'content' is required"),
        ({"content": "   "}, "'content' is required"),
        ({"content": None}, "'content' is required"),
        ({"content": 42}, "'content' must be a string"),
        ({"content": "x" * 2001}, "Content exceeds maximum length of 2000 characters (2001 provided)"),
        ({"content": "ok", "tags": 5}, "'tags' must be a list of strings or a single string"),
        ({"content": "ok", "tags": ["a", 1]}, "'tags' must be a list of strings or a single string"),
        ({"content": "ok", "tags": {"a": 1}}, "'tags' must be a list of strings or a single string"),
        ({"content": "ok", "importance": "high"}, "'importance' must be a number"),
        ({"content": "ok", "importance": True}, "'importance' must be a number"),
        ({"content": "ok", "importance": [0.5]}, "'importance' must be a number"),
        ({"content": "ok", "importance": 1.5}, "'importance' must be between 0 and 1"),
        ({"content": "ok", "importance": -0.1}, "'importance' must be between 0 and 1"),
        ({"content": "ok", "importance": "NaN"}, "'importance' must be between 0 and 1"),
        ({"content": "ok", "metadata": "x"}, "'metadata' must be an object"),
        ({"content": "ok", "metadata": [1]}, "'metadata' must be an object"),
        ({"content": "ok", "type": "Rumour"}, f"Invalid memory type 'Rumour'. Must be one of: {VALID_TYPES}"),
        ({"content": "ok", "type": 7}, f"Invalid memory type '7'. Must be one of: {VALID_TYPES}"),
        ({"content": "ok", "timestamp": "yesterday"}, "Invalid ISO timestamp"),
        ({"content": "ok", "timestamp": 1700000000}, "Invalid ISO timestamp"),
        ({"content": "ok", "is_explicit": "yes"}, "'is_explicit' must be a boolean"),
        ({"content": "ok", "source_id": ["a"]}, "'source_id' must be a string of at most 200 characters"),
        (
            {"content": "ok", "source_type": "x" * 41},
            "'source_type' must be a string of at most 40 characters",
        ),
    ],
)
def test_store_rejects_bad_fields_with_automems_message(alice_client, body, message):
    response = alice_client.post("/memory", body, format="json")
    assert error(response) == (400, message)
    assert not Memory.objects.exists()


def test_content_is_checked_before_tags_and_importance(alice_client):
    response = alice_client.post("/memory", {"tags": 5, "importance": 9}, format="json")
    assert error(response) == (400, "'content' is required")
    response = alice_client.post("/memory", {"content": "ok", "tags": 5, "importance": 9}, format="json")
    assert error(response) == (400, "'tags' must be a list of strings or a single string")


@pytest.mark.parametrize("raw", ["[1, 2]", '"text"', "null", ""])
def test_store_without_a_json_object_is_json_body_is_required(alice_client, raw):
    response = alice_client.post("/memory", raw, content_type="application/json")
    assert error(response) == (400, "JSON body is required")


def test_store_with_form_data_is_415(alice_client):
    response = alice_client.post("/memory", {"content": "x"})
    assert error(response)[0] == 415


@pytest.mark.parametrize(
    "raw", ['{"content": "ok", "importance": NaN}', '{"content": "ok", "importance": Infinity}']
)
def test_nan_and_infinity_literals_are_a_400(alice_client, raw):
    response = alice_client.post("/memory", raw, content_type="application/json")
    assert error(response)[0] == 400


def test_ten_thousand_tags_are_a_400(alice_client):
    response = alice_client.post("/memory", {"content": "ok", "tags": ["t"] * 10_000}, format="json")
    assert error(response) == (400, "'tags' must contain at most 100 tags (10000 provided)")


def test_overlong_tag_is_a_400(alice_client):
    response = alice_client.post("/memory", {"content": "ok", "tags": ["t" * 101]}, format="json")
    assert error(response) == (400, "Each tag must be at most 100 characters")


def test_deeply_nested_metadata_is_a_400(alice_client):
    metadata = {}
    for _ in range(50):
        metadata = {"a": metadata}
    response = alice_client.post("/memory", {"content": "ok", "metadata": metadata}, format="json")
    assert error(response) == (400, "'metadata' is nested too deeply (at most 10 levels)")


def test_metadata_over_the_byte_limit_is_a_400_naming_it_and_stores_nothing(alice_client, settings):
    settings.MAX_METADATA_BYTES = 1000
    response = alice_client.post("/memory", {"content": "ok", "metadata": {"y": "é" * 600}}, format="json")

    assert error(response) == (
        400,
        "'metadata' is 1208 bytes of JSON; at most 1000 (MEMSITE_MAX_METADATA_BYTES)",
    )
    assert not Memory.objects.exists()


def test_a_five_megabyte_metadata_string_is_refused_by_default(alice_client, settings):
    settings.MAX_REQUEST_BYTES = 10 * 1024 * 1024
    body = {"content": "ok", "metadata": {"y": "x" * 4_900_000}}
    response = alice_client.post("/memory", body, format="json")

    assert response.status_code == 400
    assert "MEMSITE_MAX_METADATA_BYTES" in response.json()["message"]
    assert not Memory.objects.exists()


def test_patching_metadata_over_the_byte_limit_is_a_400_and_changes_nothing(alice_client, settings):
    settings.MAX_METADATA_BYTES = 100
    memory_id = alice_client.post("/memory", {"content": "ok", "metadata": {"a": 1}}, format="json").json()[
        "memory_id"
    ]
    response = alice_client.patch(f"/memory/{memory_id}", {"metadata": {"y": "x" * 200}}, format="json")

    assert response.status_code == 400
    assert Memory.objects.get(pk=memory_id).metadata == {"a": 1}


def test_pathologically_nested_json_is_a_4xx(alice_client):
    raw = '{"content": "ok", "metadata": ' + "[" * 100_000 + "]" * 100_000 + "}"
    response = alice_client.post("/memory", raw, content_type="application/json")
    assert 400 <= error(response)[0] < 500


def test_huge_body_is_a_413(alice_client, settings):
    response = alice_client.post(
        "/memory", {"content": "x" * (settings.MAX_REQUEST_BYTES + 1)}, format="json"
    )
    assert error(response)[0] == 413


@pytest.mark.parametrize(
    "body",
    [
        {"content": "nul \x00 inside"},
        {"content": "ok", "tags": ["a\x00b"]},
        {"content": "ok", "metadata": {"k": "v\x00"}},
        {"content": "ok", "metadata": {"k\x00": 1}},
    ],
)
def test_nul_characters_are_a_400(alice_client, body):
    response = alice_client.post("/memory", body, format="json")
    assert error(response)[0] == 400


def test_lone_surrogates_are_a_400(alice_client):
    raw = json.dumps({"content": "broken \ud800 text"})
    response = alice_client.post("/memory", raw, content_type="application/json")
    assert error(response)[0] == 400


def test_invalid_utf8_is_a_400(alice_client):
    response = alice_client.post("/memory", b'{"content": "\xff\xfe"}', content_type="application/json")
    assert error(response)[0] == 400


def test_sql_metacharacters_are_stored_verbatim(alice_client):
    content = "Robert'); DROP TABLE memories_memory;-- $$ {} \\ %s"
    response = alice_client.post("/memory", {"content": content, "tags": ["';--"]}, format="json")
    assert response.status_code == 201
    assert Memory.objects.get().content == content


def test_content_of_exactly_2000_characters_is_accepted(alice_client):
    response = alice_client.post("/memory", {"content": "y" * 2000}, format="json")
    assert response.status_code == 201


def test_unauthenticated_store_is_401(anon_client):
    response = anon_client.post("/memory", {"content": "ok"}, format="json")
    assert error(response)[0] == 401
