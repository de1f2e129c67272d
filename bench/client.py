"""Plumbing shared by the bench scripts.

Machine facts and percentiles for the JSON reports, the bench database (created and migrated on
demand), a gunicorn server of the bench's own on its own port, and a small keep-alive JSON client
built on http.client so the client adds as little as possible to the measured latency.
"""

import http.client
import json
import os
import platform
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlencode, urlsplit, urlunsplit

import numpy as np
import psycopg
from psycopg import sql

from memsite import embedded_db

ROOT = Path(__file__).resolve().parent.parent
BENCH_PORT = 8091
RESULTS_DIR = ROOT / "bench" / "results"


def database_url(name):
    """The URL of database `name` on the embedded server (the port `MEMSITE_PG_PORT` gives it)."""
    return f"postgres://postgres@127.0.0.1:{embedded_db.PORT}/{name}"


BENCH_DATABASE_URL = database_url("memsite_bench")


def log(message):
    print(message, file=sys.stderr, flush=True)


def machine():
    """What the numbers were measured on (the load average shows what else was running)."""
    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return {
        "cores": os.cpu_count(),
        "ram_gb": round(ram / 2**30, 1),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "processor": platform.machine(),
        "load_average_1_5_15": [round(value, 2) for value in os.getloadavg()],
    }


def summarize_ms(samples):
    """min/p50/p95/mean/max of a list of durations in milliseconds."""
    values = np.asarray(samples, dtype=float)
    return {
        "n": int(values.size),
        "min_ms": round(float(values.min()), 2),
        "p50_ms": round(float(np.percentile(values, 50)), 2),
        "p95_ms": round(float(np.percentile(values, 95)), 2),
        "mean_ms": round(float(values.mean()), 2),
        "max_ms": round(float(values.max()), 2),
    }


def emit(report):
    """Print the report as JSON on stdout and keep a copy in bench/results/ (git-ignored)."""
    text = json.dumps(report, indent=2)
    print(text)
    RESULTS_DIR.mkdir(exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    (RESULTS_DIR / f"{report['benchmark']}-{stamp}.json").write_text(text + "\n")


def _admin_url(database_url):
    parts = urlsplit(database_url)
    return urlunsplit(parts._replace(path="/postgres")), parts.path.lstrip("/")


def ensure_database(database_url, fresh=False):
    """Create (or, when `fresh`, drop and re-create) the database, then apply the migrations."""
    admin_url, name = _admin_url(database_url)
    with psycopg.connect(admin_url, autocommit=True) as conn:
        if fresh:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    if fresh:
        MIGRATED.discard(database_url)
    migrate(database_url)


# The databases this process has brought to the checkout's schema.
MIGRATED = set()


def migrate(database_url):
    """Apply the migrations to `database_url`, once per process."""
    if database_url not in MIGRATED:
        manage("migrate", "--noinput", "-v", "0", database_url=database_url)
        MIGRATED.add(database_url)


def manage(*args, database_url):
    """Run a manage.py command against `database_url` and return its standard output."""
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=server_environment(database_url),
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{result.stderr}")
    return result.stdout


def issue_token(database_url, username):
    """A fresh API token for `username` (created if needed) and the user's id."""
    token = manage("issue_token", username, "--name", "bench", database_url=database_url).strip()
    with psycopg.connect(database_url) as conn:
        (user_id,) = conn.execute("SELECT id FROM auth_user WHERE username = %s", [username]).fetchone()
    return token, user_id


def server_environment(database_url, extra=None):
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "DJANGO_SETTINGS_MODULE": "memsite.settings",
        # Benchmarks send thousands of requests a minute from one user; the limit itself stays on.
        "MEMSITE_THROTTLE_USER_PER_MINUTE": "1000000",
        **(extra or {}),
    }


def start_worker(database_url, *args, extra_env=None):
    """A `manage.py procrastinate worker` process on the bench database, with the server's
    settings `extra_env` (the worker embeds with the same provider as the server)."""
    return subprocess.Popen(
        [sys.executable, "manage.py", "procrastinate", "worker", *args],
        cwd=ROOT,
        env=server_environment(database_url, extra_env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def wait_until_healthy(process, base_url, path, seconds, name):
    """Return once `base_url` answers 200 on `path`; raise if `process` ends or `seconds` pass."""
    client = Client(base_url)
    deadline = time.monotonic() + seconds
    while True:
        try:
            if client.request("GET", path)[0] == 200:
                break
        except OSError:
            client.reset()
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{name} at {base_url} did not become healthy")
        time.sleep(0.3)
    client.close()


@contextmanager
def running_server(database_url, port=BENCH_PORT, workers=2, extra_env=None):
    """Serve memsite as `make run` does (migrations, then gunicorn with uvicorn workers) on
    127.0.0.1:`port` for the block: a database seeded earlier gets this checkout's schema."""
    migrate(database_url)
    command = [
        str(Path(sys.executable).parent / "gunicorn"),
        "memsite.asgi:application",
        "--config",
        "python:memsite.gunicorn_conf",
        "--workers",
        str(workers),
        "--timeout",
        "600",
        "--log-level",
        "warning",
    ]
    environment = server_environment(database_url, {"MEMSITE_BIND": "127.0.0.1", "MEMSITE_PORT": str(port)})
    process = subprocess.Popen(command, cwd=ROOT, env={**environment, **(extra_env or {})})
    try:
        wait_until_healthy(process, f"http://127.0.0.1:{port}", "/health", seconds=120, name="gunicorn")
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=60)


class Client:
    """A keep-alive HTTP/1.1 JSON client for one base URL."""

    def __init__(self, base_url, token=None, timeout=600):
        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname, parts.port or 80
        self.timeout = timeout
        self.headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if token:
            self.headers["Authorization"] = f"Bearer {token}"
        self.connection = None

    def reset(self):
        self.close()
        self.connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)

    def close(self):
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def _exchange(self, method, path, payload):
        try:
            self.connection.request(method, path, body=payload, headers=self.headers)
            response = self.connection.getresponse()
            return response, response.read()
        except (http.client.HTTPException, OSError):
            self.close()
            raise

    def request(self, method, path, params=None, body=None):
        """Send one request; return (status, parsed JSON body or None, elapsed milliseconds)."""
        if self.connection is None:
            self.reset()
        if params:
            path = f"{path}?{urlencode(params, doseq=True)}"
        payload = json.dumps(body).encode() if body is not None else None
        started = time.perf_counter()
        try:
            response, data = self._exchange(method, path, payload)
        except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
            # The server closed an idle keep-alive connection: send once more on a new one.
            self.reset()
            started = time.perf_counter()
            response, data = self._exchange(method, path, payload)
        elapsed = (time.perf_counter() - started) * 1000
        parsed = (
            json.loads(data)
            if data and response.getheader("Content-Type", "").startswith("application/json")
            else None
        )
        return response.status, parsed, elapsed

    def expect(self, method, path, statuses=(200, 201), params=None, body=None):
        """Like request(), but raise with the server's message on an unexpected status."""
        status, data, elapsed = self.request(method, path, params=params, body=body)
        if status not in statuses:
            raise RuntimeError(f"{method} {path} answered {status}: {data}")
        return data, elapsed
