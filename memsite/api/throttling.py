"""Request rate limits counted atomically in PostgreSQL.

Each request is one statement: an upsert that adds one to the client's counter for the current
fixed window only while the counter is below the limit, and answers whether it did. Concurrent
requests queue on the counter's row, so no count is lost (the cache-based throttles read, then
wrote, and lost counts under concurrency). Within a window a client gets at most the limit; as
with any fixed window, a client may spend one window's allowance at its end and the next one's
at the start of the next window. Refused requests are not counted. The same statement removes up
to EXPIRED_PER_REQUEST counters of windows that ended (anyone's, skipping rows another request
is deleting), so the table stays about as large as the number of clients active in a window.
"""

import time

from django.conf import settings
from django.db import connection
from rest_framework.throttling import BaseThrottle

from memsite.models import RateCounter

TABLE = RateCounter._meta.db_table
EXPIRED_PER_REQUEST = 20
COUNT_SQL = f"""
WITH doomed AS MATERIALIZED (
    SELECT id FROM {TABLE} WHERE "window" < %(window)s
    ORDER BY "window" LIMIT {EXPIRED_PER_REQUEST} FOR UPDATE SKIP LOCKED
),
expired AS (
    DELETE FROM {TABLE} WHERE id IN (SELECT id FROM doomed)
)
INSERT INTO {TABLE} (scope, ident, "window", count) VALUES (%(scope)s, %(ident)s, %(window)s, 1)
ON CONFLICT (scope, ident, "window") DO UPDATE SET count = {TABLE}.count + 1
WHERE {TABLE}.count < %(limit)s
RETURNING count
"""


class DatabaseRateThrottle(BaseThrottle):
    """At most `limit()` requests per client per window of `window_seconds`, then 429."""

    scope = ""
    window_seconds = 60

    def limit(self):
        raise NotImplementedError

    def client(self, request):
        """The counter's key for this request, or None when this throttle does not apply."""
        raise NotImplementedError

    def allow_request(self, request, view):
        ident = self.client(request)
        if ident is None:
            return True
        now = time.time()
        window = int(now // self.window_seconds) * self.window_seconds
        self.retry_after = window + self.window_seconds - now
        with connection.cursor() as cursor:
            cursor.execute(
                COUNT_SQL, {"scope": self.scope, "ident": ident, "window": window, "limit": self.limit()}
            )
            return cursor.fetchone() is not None

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
        return f"ip:{self.get_ident(request)}"


class AnonRateThrottle(DatabaseRateThrottle):
    """MEMSITE_THROTTLE_ANON_PER_MINUTE per address, for requests without valid credentials."""

    scope = "anon"

    def limit(self):
        return settings.THROTTLE_ANON_PER_MINUTE

    def client(self, request):
        if request.user and request.user.is_authenticated:
            return None
        return f"ip:{self.get_ident(request)}"
