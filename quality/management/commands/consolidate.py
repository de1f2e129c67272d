"""manage.py consolidate [--apply]: one consolidation run now, with progress and a summary.

Scheduled runs are jobs (MEMSITE_CONSOLIDATION_CRON) that the workers run.
"""

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from quality.consolidation import PHASES, ConsolidationBusy, run_consolidation


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

    def handle(self, *args, apply=False, verbosity=1, **options):
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
