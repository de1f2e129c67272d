from django.core.management.base import BaseCommand, CommandError

from graph import age


class Command(BaseCommand):
    help = "Report every difference between the association/memory tables and the AGE graph."

    def add_arguments(self, parser):
        parser.add_argument("--limit", type=int, default=1000, help="show at most this many differences")

    def handle(self, *args, limit, **options):
        if not age.graph_available():
            raise CommandError("The AGE graph 'memsite' does not exist (run migrate).")
        differences = age.differences(limit)
        for kind, detail in differences:
            self.stdout.write(f"{kind}: {detail}")
        if differences:
            more = " (or more)" if len(differences) == limit else ""
            raise CommandError(
                f"{len(differences)}{more} differences between tables and graph; "
                "run `manage.py graph_rebuild` to rebuild the graph from the tables."
            )
        self.stdout.write(self.style.SUCCESS("Graph and tables agree."))
