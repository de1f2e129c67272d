import sys

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from portability import exports


class Command(BaseCommand):
    help = "Write one owner's memories, associations, findings, boosts and assessments as memsite JSON Lines."

    def add_arguments(self, parser):
        parser.add_argument("--owner", required=True, help="The owner's username.")
        parser.add_argument("--output", help="The file to write (default: standard output).")
        parser.add_argument("--live-only", action="store_true", help="Leave archived memories out.")

    def handle(self, *args, owner, output=None, live_only=False, **options):
        user = get_user_model().objects.filter(username=owner).first()
        if user is None:
            raise CommandError(f"No user named '{owner}'")
        stream = open(output, "w", encoding="utf-8") if output else sys.stdout  # noqa: SIM115
        quiet = options["verbosity"] == 0 or not output
        try:
            with tqdm(unit="line", disable=quiet, file=sys.stderr) as bar:
                for line in exports.export_lines(user, include_archived=not live_only):
                    stream.write(line)
                    bar.update()
        finally:
            if output:
                stream.close()
