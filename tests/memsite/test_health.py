import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_health_reports_database_pgvector_and_age(anon_client, live_worker):
    response = anon_client.get("/health")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"] == "ok"
    assert body["pgvector"] == "ok"
    assert body["age"] == "ok"
    assert body["version"]


def test_health_is_503_when_the_database_cannot_be_reached():
    script = (
        "import django, json; django.setup();"
        "from django.test import Client;"
        "r = Client().get('/health');"
        "print(json.dumps({'code': r.status_code, 'body': r.json()}))"
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "memsite.settings",
        "DATABASE_URL": "postgres://nobody@127.0.0.1:9/nowhere",
        "ALLOWED_HOSTS": "testserver",
        "MEMSITE_DB_CONNECT_TIMEOUT": "2",
    }
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    assert outcome["code"] == 503
    assert outcome["body"]["status"] == "unavailable"
    assert outcome["body"]["database"] == "unavailable"


def test_api_request_is_503_envelope_when_the_database_cannot_be_reached():
    script = (
        "import django, json; django.setup();"
        "from django.test import Client;"
        "r = Client().get('/api/schema/?format=json', HTTP_AUTHORIZATION='Bearer a.b');"
        "print(json.dumps({'code': r.status_code, 'body': r.json()}))"
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "memsite.settings",
        "DATABASE_URL": "postgres://nobody@127.0.0.1:9/nowhere",
        "ALLOWED_HOSTS": "testserver",
        "MEMSITE_DB_CONNECT_TIMEOUT": "2",
    }
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    assert outcome["code"] == 503
    assert outcome["body"]["message"] == "Database unavailable: PostgreSQL cannot be reached"


@pytest.mark.django_db
def test_openapi_schema_and_docs_are_served(anon_client):
    schema = anon_client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    assert schema.json()["openapi"].startswith("3.")
    docs = anon_client.get("/api/docs/")
    assert docs.status_code == 200
    assert b"swagger-ui" in docs.content


def test_out_of_range_setting_fails_at_start_up_naming_the_variable():
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "memsite.settings",
        "MEMSITE_THROTTLE_USER_PER_MINUTE": "0",
    }
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "MEMSITE_THROTTLE_USER_PER_MINUTE must be between 1 and 1000000" in result.stderr


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/api/docs/", "/api/schema/"])
def test_a_bad_token_on_the_documentation_gets_the_json_envelope(anon_client, url):
    response = anon_client.get(url, HTTP_AUTHORIZATION="Bearer nope.nope")

    assert response.status_code == 401
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"status": "error", "code": 401, "message": "Invalid API token"}
