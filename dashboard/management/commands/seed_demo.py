from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from dashboard import demo
from memories.models import Memory
from memsite.addresses import web_address


class Command(BaseCommand):
    help = (
        "Fill the dashboard with a demo data set for a user (default 'demo'): a few hundred memories, "
        "associations, duplicates and contradictions, findings and a consolidation run with boosts."
    )

    def add_arguments(self, parser):
        parser.add_argument("--user", default="demo", help="owner of the demo memories (default: demo)")
        parser.add_argument("--memories", type=int, default=300, help="how many memories (10-5000)")
        parser.add_argument(
            "--reset", action="store_true", help="delete the user's memories first, then seed again"
        )

    def handle(self, user, memories, reset, **options):
        if not 10 <= memories <= 5000:
            raise CommandError("--memories must be between 10 and 5000")
        owner = get_user_model().objects.filter(username=user).first()
        if owner is None:
            raise CommandError(f"No user '{user}'. Create it first (manage.py ensure_demo_user for 'demo').")
        existing = Memory.objects.filter(owner=owner).count()
        if existing and not reset:
            self.stdout.write(
                f"{user} already has {existing} memories: demo data not added (use --reset to replace them)."
            )
            self.stdout.write(f"Dashboard: {web_address()}/dashboard/ (staff sign-in, e.g. demo / demo).")
            return
        if existing:
            self.stdout.write(f"Removing {existing} memories of {user}...")
            demo.clear_demo_data(owner)
        with tqdm(
            total=memories, desc="storing demo memories", unit="memory", disable=options["verbosity"] == 0
        ) as bar:

            def progress(done, total):
                bar.total = total
                bar.update(done - bar.n)

            result = demo.seed_demo(owner, count=memories, progress=progress)
        findings = ", ".join(f"{count} {kind}" for kind, count in sorted(result.findings.items())) or "none"
        self.stdout.write(
            self.style.SUCCESS(
                f"Seeded {result.memories} memories for {user} with {result.associations} associations; "
                f"findings: {findings}; consolidation runs: {len(result.runs)}."
            )
        )
        self.stdout.write(f"Dashboard: {web_address()}/dashboard/ (staff sign-in, e.g. demo / demo).")
