"""The web process as `make run` serves it: on MEMSITE_BIND:MEMSITE_PORT, counting each request by
the socket's peer (uvicorn does not rewrite it from X-Forwarded-For)."""

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

GUNICORN = str(Path(sys.executable).parent / "gunicorn")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def gunicorn(**variables):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "memsite.settings", **variables}
    command = [
        GUNICORN,
        "memsite.asgi:application",
        "--config",
        "python:memsite.gunicorn_conf",
        "--workers",
        "1",
    ]
    return subprocess.Popen(
        command, cwd=settings.BASE_DIR, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def status_of(url, headers=None):
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=60) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def wait_until_serving(process, url):
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            return status_of(url)
        except OSError:
            if process.poll() is not None:
                pytest.fail(f"gunicorn stopped: {process.stdout.read()}")
            time.sleep(0.3)
    pytest.fail("gunicorn did not start")


@pytest.mark.django_db(transaction=True)
def test_the_web_process_listens_on_memsite_port_and_ignores_a_spoofed_forwarded_for_header():
    port = free_port()
    database = connection.settings_dict
    url = f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"
    process = gunicorn(
        DATABASE_URL=url,
        MEMSITE_BIND="127.0.0.1",
        MEMSITE_PORT=str(port),
        MEMSITE_THROTTLE_ANON_PER_MINUTE="1",
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(process, f"{base}/health")
        statuses = [status_of(f"{base}/api/schema/", {"X-Forwarded-For": f"203.0.113.{n}"}) for n in range(6)]
    finally:
        process.terminate()
        process.wait(timeout=60)

    assert statuses[0] == 200
    assert statuses[1:] == [429] * 5


@pytest.mark.parametrize(
    ("variable", "value"), [("MEMSITE_PORT", "0"), ("MEMSITE_PORT", "http"), ("MEMSITE_BIND", "localhost:80")]
)
def test_a_bad_web_address_stops_the_web_process_naming_the_variable(variable, value):
    process = gunicorn(**{variable: value})
    output, _ = process.communicate(timeout=60)

    assert process.returncode != 0
    assert variable in output
