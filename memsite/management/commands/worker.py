"""`manage.py worker`: a Procrastinate worker that outlives database outages.

Procrastinate's own worker stops (with status 0) when its connection to PostgreSQL breaks: its
notification listener or heartbeat fails and it shuts down. This command runs that worker again
after such a stop, waiting 1, 2, 4 … up to MAX_BACKOFF_SECONDS between attempts (reset once a
worker has run for a minute), and exits only when asked to by SIGINT or SIGTERM. Each new worker
registers itself and sends heartbeats again, which is what /health reads.
"""

import asyncio
import contextlib
import logging
import signal
import time

from django.core.management.base import BaseCommand
from procrastinate.contrib.django import app

logger = logging.getLogger("memsite.worker")

MAX_BACKOFF_SECONDS = 30
HEALTHY_RUN_SECONDS = 60


class Command(BaseCommand):
    help = "Run a job worker that reconnects after a database outage (Ctrl-C or SIGTERM stops it)."

    def add_arguments(self, parser):
        parser.add_argument("--queues", default="", help="comma-separated queues (default: every queue)")
        parser.add_argument("--concurrency", type=int, default=1, help="jobs run at once (default 1)")

    def handle(self, queues, concurrency, **options):
        names = [name.strip() for name in queues.split(",") if name.strip()] or None
        asyncio.run(supervise(names, concurrency))


async def supervise(queues, concurrency):
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    current = None

    def stop():
        stopping.set()
        if current is not None:
            current.cancel()

    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop)
    backoff = 1
    while not stopping.is_set():
        started = time.monotonic()
        current = asyncio.create_task(run_once(queues, concurrency))
        try:
            await current
        except asyncio.CancelledError:
            if stopping.is_set():
                break
            raise
        except Exception as error:  # the database is down or went away: try again
            logger.warning("job worker could not run: %s", error.__cause__ or error)
        if stopping.is_set():
            break
        if time.monotonic() - started >= HEALTHY_RUN_SECONDS:
            backoff = 1
        logger.warning("job worker stopped; starting it again in %s s", backoff)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stopping.wait(), timeout=backoff)
        backoff = min(backoff * 2, MAX_BACKOFF_SECONDS)


async def run_once(queues, concurrency):
    """One Procrastinate worker on its own connection pool, until it stops or is cancelled."""
    with app.replace_connector(app.connector.get_worker_connector()) as worker_app:
        async with worker_app.open_async():
            await worker_app.run_worker_async(
                queues=queues, concurrency=concurrency, install_signal_handlers=False
            )
