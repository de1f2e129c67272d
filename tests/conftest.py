import threading

import pytest
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.migrations.executor import MigrationExecutor
from django.test import override_settings
from procrastinate.contrib.django import app
from procrastinate.periodic import PeriodicRegistry
from rest_framework.test import APIClient

from graph import age
from memsite.models import ApiToken
from tests.factories import UserFactory

QUEUE_TRUNCATE = (
    "TRUNCATE procrastinate_jobs, procrastinate_events, procrastinate_periodic_defers, "
    "procrastinate_workers CASCADE"
)


def in_thread(function, *args, **kwargs):
    """Start `function(*args, **kwargs)` on a thread with its own database connection; answers the
    thread and a list that holds the function's result once it returned."""
    results = []

    def run():
        try:
            results.append(function(*args, **kwargs))
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, results


def at_once(calls):
    """Call each function of `calls` on a thread of its own, all released together; answers their
    results in the order of `calls` (None for one that raised)."""
    barrier = threading.Barrier(len(calls))

    def released(call):
        barrier.wait()
        return call()

    started = [in_thread(released, call) for call in calls]
    for thread, _ in started:
        thread.join()
    return [results[0] if results else None for _, results in started]


def migrate(*targets):
    """Migrate to `targets`, answering the statements the migrations ran."""
    statements = []

    def keep(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(keep):
        MigrationExecutor(connection).migrate(list(targets))
    return statements


@pytest.fixture
def latest_after():
    """Whatever the test migrates back to, every app is migrated to its latest again after it."""
    yield
    migrate(*MigrationExecutor(connection).loader.graph.leaf_nodes())


@pytest.fixture
def live_worker():
    """A worker heartbeat seconds ago, as a running `manage.py worker` sends (without running one)."""
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO procrastinate_workers (last_heartbeat) VALUES (now() - interval '2 s')")


def client_for(user):
    _, plain = ApiToken.issue(user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {plain}")
    return client


@pytest.fixture(autouse=True, scope="session")
def fast_password_hashing():
    """Hash test passwords with one round instead of the production hasher's million: every test
    user has one, and at 0.4 s each they were half of the suite's time."""
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture
def alice(db):
    return UserFactory(username="alice")


@pytest.fixture
def bob(db):
    return UserFactory(username="bob")


@pytest.fixture
def staff(db):
    return UserFactory(username="curator", is_staff=True)


@pytest.fixture
def alice_client(alice):
    return client_for(alice)


@pytest.fixture
def bob_client(bob):
    return client_for(bob)


@pytest.fixture
def staff_client(staff):
    return client_for(staff)


@pytest.fixture
def anon_client():
    return APIClient()


@pytest.fixture(autouse=True)
def committed_state_reset(request):
    """Tests that commit start from an empty AGE graph and an empty queue: the flush between such
    tests empties the project's tables but neither the graph nor the queue's tables."""
    marker = request.node.get_closest_marker("django_db")
    committing = marker is not None and marker.kwargs.get("transaction", False)
    if committing or {"transactional_db", "live_server"} & set(request.fixturenames):
        request.getfixturevalue("transactional_db")
        age.rebuild_from_tables()
        with connection.cursor() as cursor:
            cursor.execute(QUEUE_TRUNCATE)


@pytest.fixture
def run_jobs(transactional_db):
    """Run the queued jobs with a real Procrastinate worker in this process, until none is left.

    Jobs are written in the store's transaction and read by the worker on its own connections,
    so tests that use it commit (transaction=True).
    """

    def run(**options):
        with app.replace_connector(app.connector.get_worker_connector()) as worker_app:
            # Without the schedules, or a suite run at 03:30 would see the nightly consolidation too.
            schedules, worker_app.periodic_registry = worker_app.periodic_registry, PeriodicRegistry()
            try:
                worker_app.run_worker(
                    wait=False, install_signal_handlers=False, listen_notify=False, **options
                )
            finally:
                worker_app.periodic_registry = schedules

    # Worker threads close their connections after each job, so none outlives the test database.
    database = connections.settings[DEFAULT_DB_ALIAS]
    max_age, database["CONN_MAX_AGE"] = database["CONN_MAX_AGE"], 0
    yield run
    database["CONN_MAX_AGE"] = max_age
