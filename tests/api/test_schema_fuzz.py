"""Schemathesis drives every operation of the OpenAPI document with generated requests, as a
staff and as a non-staff user, and checks each answer against the document: documented status
codes and content types, response schemas, no 5xx, schema-invalid input refused.
Time-boxed by the number of examples per operation and derandomized, so a run is repeatable."""

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import CHECKS, load_all_checks
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tests.conftest import client_for
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
EXAMPLES = 20
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)


def operations():
    document = SchemaGenerator().get_schema(request=None, public=True)
    schema = schemathesis.openapi.from_dict(document)
    schema.app = get_wsgi_application()
    return [result.ok() for result in schema.get_all_operations()]


def failures_of(operation, token, checks):
    """The first failing case of `operation`, as text, or None."""

    @FUZZ
    @given(case=operation.as_strategy())
    def check(case):
        case.call_and_validate(headers={"Authorization": token}, checks=checks)

    try:
        check()
    except (Exception, BaseExceptionGroup) as error:  # noqa: BLE001 - each failure is reported
        return f"{operation.method.upper()} {operation.path}: {error}"
    return None


@pytest.fixture
def connection_kept_open():
    """Requests go through the WSGI app directly; like Django's test client, keep the test's
    database connection (and its transaction) open across them."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.mark.parametrize("is_staff", [False, True], ids=["member", "curator"])
def test_every_operation_answers_as_its_schema_says(is_staff, connection_kept_open):
    load_all_checks()
    # Every check but positive_data_acceptance: some rules span fields (start ≤ end, either
    # `memory_ids` or `all`) and JSON Schema cannot say them, so a schema-valid request may be a 400.
    checks = [check for check in CHECKS.get_all() if check is not positive_data_acceptance]
    user = UserFactory(username="curator" if is_staff else "member", is_staff=is_staff)
    token = client_for(user)._credentials["HTTP_AUTHORIZATION"]
    failures = [failure for op in operations() if (failure := failures_of(op, token, checks))]
    assert not failures, "\n\n".join(failures)
