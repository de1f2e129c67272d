from django.core.management.base import BaseCommand
from tqdm import tqdm

from memories import services
from memories.models import Memory


class Command(BaseCommand):
    help = "Recompute the embedding of every memory (or of one user's) with the configured provider."

    def add_arguments(self, parser):
        parser.add_argument("--user", help="Only this username's memories.")
        parser.add_argument("--batch-size", type=int, default=256, help="Texts per encode and UPDATE.")

    def handle(self, *args, user=None, batch_size=256, **options):
        memories = Memory.objects.all()
        if user:
            memories = memories.filter(owner__username=user)
        total = memories.count()
        with tqdm(total=total, unit="memory", disable=total == 0 or options["verbosity"] == 0) as bar:
            summary = services.reembed_memories(memories, batch_size=max(1, batch_size), progress=bar.update)
        rate = summary["reembedded"] / summary["seconds"] if summary["seconds"] else 0
        self.stdout.write(
            f"Re-embedded {summary['reembedded']} memories with {summary['provider']} "
            f"in {summary['seconds']:.1f} s ({rate:.0f}/s)."
        )
