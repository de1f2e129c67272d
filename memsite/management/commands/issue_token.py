from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from memsite.models import ApiToken


class Command(BaseCommand):
    help = "Create an API token for USER (creating the user if needed) and print it."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--name", default="default", help="a label for the token")
        parser.add_argument("--staff", action="store_true", help="make the user staff")

    def handle(self, username, name, staff, **options):
        user, created = get_user_model().objects.get_or_create(username=username)
        if created:
            user.set_unusable_password()
        if staff:
            user.is_staff = True
        user.save()
        _, plain = ApiToken.issue(user, name)
        self.stdout.write(plain)
