"""manage.py detect_inconsistencies [--owner USERNAME] [--changed-since ISO]: run detection, with
progress and a summary. Without --owner every owner is run in turn (quality/every_owner.py); the
command fails naming the owners whose run failed, after the others finished."""

import time

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from memsite.errors import Invalid
from memsite.validation import parse_timestamp
from quality.detection import detect_inconsistencies
from quality.every_owner import detect_for_every_owner


class Command(BaseCommand):
    help = "Detect duplicates, contradictions, outdated and low-confidence memories (all owners by default)."

    def add_arguments(self, parser):
        parser.add_argument("--owner", help="only this user's memories (username)")
        parser.add_argument(
            "--changed-since",
            help="incremental: only memories stored, edited or corroborated after this ISO 8601 time",
        )

    def handle(self, *args, owner=None, changed_since=None, **options):
        since = None
        if changed_since is not None:
            try:
                since = parse_timestamp(changed_since, "--changed-since")
            except Invalid as error:
                raise CommandError(str(error)) from None
        user = None
        if owner:
            user = get_user_model().objects.filter(username=owner).first()
            if user is None:
                raise CommandError(f"No user named {owner!r}")
        started = time.perf_counter()
        with tqdm(
            unit="memory" if user else "owner",
            desc="neighbour search",
            file=self.stderr,
            disable=options["verbosity"] == 0,
        ) as bar:

            def progress(done, total):
                bar.total = total
                bar.update(done - bar.n)

            if user is not None:
                result, failed = detect_inconsistencies(user, progress=progress, changed_since=since), []
            else:
                result, failed = detect_for_every_owner(changed_since=since, progress=progress)
        self._summary(result, started)
        if failed:
            raise CommandError(
                "Detection failed for owners "
                + "; ".join(f"{item['owner_id']}: {item['error']}" for item in failed)
                + " (the other owners' findings are kept)"
            )

    def _summary(self, result, started):
        found = ", ".join(f"{count} {name}" for name, count in result.found.items())
        seconds = time.perf_counter() - started
        self.stdout.write(
            f"Scanned {result.scanned} memories in {seconds:.1f} s: open findings {found}; "
            f"{result.created} new, {result.no_longer_detected} no longer detected, "
            f"{result.reevaluated} memories re-evaluated."
        )
