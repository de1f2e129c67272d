from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from graph import age


class Command(BaseCommand):
    help = (
        "After a pg_restore: point AGE's catalog at this database's graph schema, then count the "
        "graph through Cypher. Safe to run again; run graph_check afterwards."
    )

    def handle(self, *args, **options):
        if not age.graph_available():
            raise CommandError("The AGE graph 'memsite' does not exist (was the dump restored?).")
        with transaction.atomic():
            moved = age.relink_catalog()
        vertices, edges = age.cypher_counts()
        linked = "relinked to this database" if moved else "already linked to this database"
        self.stdout.write(
            self.style.SUCCESS(f"Graph {linked}; Cypher reads {vertices} memories, {edges} edges.")
        )
