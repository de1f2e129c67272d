"""Background jobs of imports: one job runs one ImportRun to its end (a retry resumes it)."""

from procrastinate.contrib.django import app

from memsite.jobs import TRANSIENT_RETRY
from portability import services


@app.task(queue="imports", retry=TRANSIENT_RETRY)
def import_file(run_id, owner_id):
    """Import the lines of run `run_id` (queued by POST /import for `owner_id`)."""
    return services.run_import(run_id)
