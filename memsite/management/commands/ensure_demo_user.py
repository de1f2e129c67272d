from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from memsite.addresses import web_address
from memsite.models import ApiToken


class Command(BaseCommand):
    help = "Ensure the staff user 'demo' exists (password 'demo' when created) and print a new API token."

    def handle(self, **options):
        user, created = get_user_model().objects.get_or_create(
            username="demo", defaults={"is_staff": True, "is_superuser": True}
        )
        if created:
            user.set_password("demo")
            user.save()
        ApiToken.objects.filter(user=user, name="demo").delete()
        _, plain = ApiToken.issue(user, "demo")
        address = web_address()
        self.stdout.write(
            f"\nmemsite is starting on {address}\n"
            "  dashboard and admin: sign in as demo / demo"
            f"{' (created now)' if created else ''}\n"
            f"  API token for demo:  {plain}\n"
            f'  try: curl -H "Authorization: Bearer {plain}" {address}/recall?query=hello\n'
        )
