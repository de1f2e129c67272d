"""manage.py detect_inconsistencies [--owner USERNAME]: run detection, with progress and a summary."""

import time

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from quality.detection import detect_inconsistencies


class Command(BaseCommand):
    help = "Detect duplicates, contradictions, outdated and low-confidence memories (all owners by default)."

    def add_arguments(self, parser):
        parser.add_argument("--owner", help="only this user's memories (username)")

    def handle(self, *args, owner=None, **options):
        user = None
        if owner:
            user = get_user_model().objects.filter(username=owner).first()
            if user is None:
                raise CommandError(f"No user named {owner!r}")
        started = time.perf_counter()
        with tqdm(
            unit="memory", desc="neighbour search", file=self.stderr, disable=options["verbosity"] == 0
        ) as bar:

            def progress(done, total):
                bar.total = total
                bar.update(done - bar.n)

            result = detect_inconsistencies(user, progress=progress)
        found = ", ".join(f"{count} {name}" for name, count in result.found.items())
        seconds = time.perf_counter() - started
        self.stdout.write(
            f"Scanned {result.scanned} memories in {seconds:.1f} s: open findings {found}; "
            f"{result.created} new, {result.no_longer_detected} no longer detected, "
            f"{result.reevaluated} memories re-evaluated."
        )
