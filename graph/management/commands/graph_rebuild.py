import sys
import time

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from graph import age, services
from graph.models import RELATION_PROPERTIES


class Command(BaseCommand):
    help = "Rebuild the AGE graph (vertices and edges) from the memory and association tables."

    def handle(self, *args, **options):
        if not age.graph_available():
            raise CommandError("The AGE graph 'memsite' does not exist (run migrate).")
        started = time.perf_counter()
        with tqdm(total=1 + len(RELATION_PROPERTIES), unit="label", file=sys.stderr) as bar:

            def progress(label, count):
                bar.set_postfix_str(f"{label}: {count}")
                bar.update(1)

            counts = services.rebuild_graph(progress)
        edges = sum(count for label, count in counts.items() if label != "vertices")
        self.stdout.write(
            self.style.SUCCESS(
                f"Rebuilt the graph: {counts['vertices']} vertices, {edges} edges "
                f"in {time.perf_counter() - started:.1f} s."
            )
        )
