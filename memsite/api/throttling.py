"""Request rate limits kept atomically in PostgreSQL: a generic cell rate algorithm (GCRA).

A client with a limit of L requests per minute earns one request every T = 60/L seconds and may
run up to a burst of B = ceil(L/10) requests ahead. Its state is one row: the theoretical
arrival time (TAT) of its next request. A request at time t passes when TAT - t <= (B - 1)·T,
and then moves TAT to max(TAT, t) + T; a refused request changes nothing and is told exactly
when it would pass (TAT - (B - 1)·T - t). So over any 60 seconds, wherever they start, a client
gets at most L + B requests: there are no windows whose turn lets a burst through twice.

Each request is one statement on the database's clock, shared by every process and machine:
an upsert of the client's row, which concurrent requests of that client queue on, so none is
lost. The table is UNLOGGED, so the statement waits for no WAL flush; a crash of PostgreSQL
forgets the allowances (every client starts afresh). The same statement removes up to
EXPIRED_PER_REQUEST rows of other clients whose TAT has passed (a row in the past means the same
as no row), skipping rows another request holds, so the table stays about as large as the
number of clients active in the last minute.
"""

import math

from django.conf import settings
from django.db import connection
from rest_framework.throttling import BaseThrottle

from memsite.addresses import client_address
from memsite.models import RateBucket

TABLE = RateBucket._meta.db_table
EXPIRED_PER_REQUEST = 20
BURST_FRACTION = 0.1
COUNT_SQL = f"""
WITH clock AS MATERIALIZED (SELECT extract(epoch FROM clock_timestamp())::float8 AS now),
doomed AS MATERIALIZED (
    SELECT id FROM {TABLE}
    WHERE tat < (SELECT now FROM clock) AND NOT (scope = %(scope)s AND ident = %(ident)s)
    ORDER BY tat LIMIT {EXPIRED_PER_REQUEST} FOR UPDATE SKIP LOCKED
),
expired AS (
    DELETE FROM {TABLE} WHERE id IN (SELECT id FROM doomed)
)
INSERT INTO {TABLE} AS bucket (scope, ident, tat, allowed)
SELECT %(scope)s, %(ident)s, clock.now + %(interval)s, true FROM clock
ON CONFLICT (scope, ident) DO UPDATE SET
    allowed = bucket.tat - (EXCLUDED.tat - %(interval)s) <= %(tolerance)s,
    tat = CASE
        WHEN bucket.tat - (EXCLUDED.tat - %(interval)s) <= %(tolerance)s
        THEN greatest(bucket.tat, EXCLUDED.tat - %(interval)s) + %(interval)s
        ELSE bucket.tat
    END
RETURNING allowed, tat - %(tolerance)s - (SELECT now FROM clock)
"""


def burst(limit):
    """How many requests a client may send at once: a tenth of its per-minute limit, at least 1."""
    return max(1, math.ceil(limit * BURST_FRACTION))


class DatabaseRateThrottle(BaseThrottle):
    """At most `limit()` requests per client per minute, plus a burst of `burst(limit)`, then 429."""

    scope = ""
    period_seconds = 60

    def limit(self):
        raise NotImplementedError

    def client(self, request):
        """The allowance's key for this request, or None when this throttle does not apply."""
        raise NotImplementedError

    def allow_request(self, request, view):
        ident = self.client(request)
        if ident is None:
            return True
        limit = self.limit()
        interval = self.period_seconds / limit
        params = {
            "scope": self.scope,
            "ident": ident,
            "interval": interval,
            "tolerance": (burst(limit) - 1) * interval,
        }
        with connection.cursor() as cursor:
            cursor.execute(COUNT_SQL, params)
            allowed, wait = cursor.fetchone()
        self.retry_after = max(wait, 0.0)
        return allowed

    def wait(self):
        return self.retry_after


class UserRateThrottle(DatabaseRateThrottle):
    """MEMSITE_THROTTLE_USER_PER_MINUTE per signed-in user (per address for anonymous requests)."""

    scope = "user"

    def limit(self):
        return settings.THROTTLE_USER_PER_MINUTE

    def client(self, request):
        if request.user and request.user.is_authenticated:
            return f"user:{request.user.pk}"
        return f"ip:{client_address(request)}"


class AnonRateThrottle(DatabaseRateThrottle):
    """MEMSITE_THROTTLE_ANON_PER_MINUTE per address, for requests without valid credentials."""

    scope = "anon"

    def limit(self):
        return settings.THROTTLE_ANON_PER_MINUTE

    def client(self, request):
        if request.user and request.user.is_authenticated:
            return None
        return f"ip:{client_address(request)}"
