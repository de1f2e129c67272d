"""manage.py consolidate [--apply] [--every [HOURS]]: run consolidation with progress and a summary."""

import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from quality.consolidation import PHASES, ConsolidationBusy, run_consolidation

SCHEDULE_OFF = (
    "No schedule: pass --every HOURS or set MEMSITE_CONSOLIDATION_SCHEDULE_HOURS (0, the default, is off)"
)


def _counts(counts):
    return ", ".join(
        f"{name} {value}"
        for name, value in counts.items()
        if name != "duration_ms" and not isinstance(value, list)
    )


class Command(BaseCommand):
    help = "Run consolidation over every live memory (a dry run unless --apply)."

    def add_arguments(self, parser):
        parser.add_argument("--apply", action="store_true", help="change memories (default: dry run)")
        parser.add_argument(
            "--every",
            type=float,
            nargs="?",
            const=-1,
            metavar="HOURS",
            help="repeat every HOURS (default: MEMSITE_CONSOLIDATION_SCHEDULE_HOURS) until stopped",
        )

    def handle(self, *args, apply=False, every=None, verbosity=1, **options):
        if every is None:
            self._run_once(apply, verbosity)
            return
        hours = settings.CONSOLIDATION_SCHEDULE_HOURS if every == -1 else every
        if hours <= 0:
            raise CommandError(SCHEDULE_OFF)
        while True:
            try:
                self._run_once(apply, verbosity)
            except CommandError as error:
                self.stderr.write(str(error))
            time.sleep(hours * 3600)

    def _run_once(self, apply, verbosity):
        bar = tqdm(total=len(PHASES), unit="phase", disable=verbosity < 1, file=self.stderr)

        def on_phase(run, index, name, label):
            bar.set_description(label)
            bar.update(index - bar.n)

        try:
            run = run_consolidation(dry_run=not apply, started_by=None, on_phase=on_phase)
            bar.set_description("Done")
            bar.update(len(PHASES) - bar.n)
        except ConsolidationBusy as busy:
            raise CommandError(str(busy)) from None
        finally:
            bar.close()
        if verbosity >= 2:
            for name, label, _ in PHASES:
                counts = run.phases[name]
                self.stdout.write(f"  {label}: {_counts(counts)} ({counts['duration_ms']} ms)")
                for pair in counts.get("pairs", []):
                    self.stdout.write(f"    would link {pair['source']} ~ {pair['target']}: {pair['kind']}")
        seconds = (run.finished_at - run.started_at).total_seconds()
        kind = "Dry run" if run.dry_run else "Run"
        boost, phases = run.phases["boost"], run.phases
        self.stdout.write(
            f"{kind} #{run.pk} finished in {seconds:.1f} s: {phases['evaluate']['evaluated']} evaluated, "
            f"{phases['discover'].get('created', 0)} associations discovered, "
            f"{boost['applied']} boosted ({boost['recomputed']} recomputed, {boost['decayed']} decayed, "
            f"{boost['bidirectional']} bidirectional), {phases['relevance']['scored']} scored, "
            f"{phases['retention']['archived'] + phases['cleanup']['archived']} archived"
            + (" (nothing changed)" if run.dry_run else "")
        )
