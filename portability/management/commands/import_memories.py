import sys

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from memsite.errors import DomainError
from portability import services
from portability.formats import FORMATS


class Command(BaseCommand):
    help = "Import a file into one owner's memories (memsite JSON Lines, or a peer's file with --format)."

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--owner", required=True, help="The owner's username.")
        parser.add_argument("--format", default="memsite", choices=sorted(FORMATS))
        parser.add_argument("--dry-run", action="store_true", help="Report what would happen; write nothing.")

    def handle(self, *args, file, owner, format="memsite", dry_run=False, **options):
        user = get_user_model().objects.filter(username=owner).first()
        if user is None:
            raise CommandError(f"No user named '{owner}'")
        try:
            run = services.take_in(user, FORMATS[format](file), format, dry_run)
            with tqdm(
                total=run.total_lines, unit="line", disable=options["verbosity"] == 0, file=sys.stderr
            ) as bar:
                bar.update(run.next_line - 1)
                summary = services.run_import(run.pk, progress=bar.update)
        except DomainError as error:
            raise CommandError(error.message) from None
        except OSError as error:
            raise CommandError(str(error)) from None
        verb = "Would import" if dry_run else "Imported"
        self.stdout.write(
            f"{verb} {summary['imported']} records, skipped {summary['skipped']}, {summary['failed']} failed."
        )
        for failure in summary["failures"]:
            self.stdout.write(f"  line {failure['line']}: {failure['reason']}")
