"""DATABASE_REPLICA_URLS and the replica limits are checked at start-up."""

import json

from tests.startup import start_with

SHOW = (
    "import django, json; django.setup(); from django.conf import settings as s;"
    "print(json.dumps({a: [d['PORT'], d['TEST'].get('MIRROR')] for a, d in s.DATABASES.items()}))"
)


def test_each_replica_url_becomes_a_database_alias_mirroring_default():
    result = start_with(
        SHOW, DATABASE_REPLICA_URLS="postgres://u@replica-a:5433/memsite, postgres://u@replica-b:5434/memsite"
    )
    assert result.returncode == 0, result.stderr
    aliases = json.loads(result.stdout.strip().splitlines()[-1])
    assert aliases["replica_1"] == [5433, "default"]
    assert aliases["replica_2"] == [5434, "default"]


def test_a_replica_url_that_is_not_postgres_stops_start_up_naming_the_entry():
    result = start_with(DATABASE_REPLICA_URLS="postgres://u@a/memsite,mysql://u@b/memsite")

    assert result.returncode != 0
    assert "DATABASE_REPLICA_URLS entry 2 must be a postgres:// URL" in result.stderr


def test_a_pin_shorter_than_the_lag_a_replica_may_have_stops_start_up():
    result = start_with(MEMSITE_REPLICA_MAX_LAG_SECONDS="30", MEMSITE_REPLICA_PIN_SECONDS="20")

    assert result.returncode != 0
    assert "MEMSITE_REPLICA_PIN_SECONDS must be at least MEMSITE_REPLICA_MAX_LAG_SECONDS" in result.stderr
