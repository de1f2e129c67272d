from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

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
        self.stdout.write(
            "\nmemsite is starting on http://127.0.0.1:8000\n"
            "  dashboard and admin: sign in as demo / demo"
            f"{' (created now)' if created else ''}\n"
            f"  API token for demo:  {plain}\n"
            f'  try: curl -H "Authorization: Bearer {plain}" http://127.0.0.1:8000/recall?query=hello\n'
        )
