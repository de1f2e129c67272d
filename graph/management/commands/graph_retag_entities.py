from django.core.management.base import BaseCommand

from graph.tasks import retag_entities
from memsite import jobs


class Command(BaseCommand):
    help = "Queue the job that adds today's entity tags to every existing memory (idempotent)."

    def handle(self, *args, **options):
        job = jobs.defer_unless_waiting(retag_entities)
        if job is None:
            self.stdout.write("A re-tagging job is already waiting.")
        else:
            self.stdout.write(self.style.SUCCESS(f"Queued re-tagging job {job}."))
