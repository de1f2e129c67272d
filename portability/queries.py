"""Reads of imports: where one stands, for the job it runs and the dashboard."""

from portability.models import ImportRun

IMPORT_TASK = "portability.tasks.import_file"


def import_progress(job_args):
    """The counts so far of the import a job of IMPORT_TASK runs (None: no such import)."""
    run = ImportRun.objects.filter(pk=job_args.get("run_id")).first()
    return None if run is None else run.progress()


def imports_for(user, limit=20):
    """The latest imports `user` may see: their own (staff: everybody's)."""
    runs = ImportRun.objects.select_related("owner")
    return list((runs if user.is_staff else runs.filter(owner=user))[:limit])
