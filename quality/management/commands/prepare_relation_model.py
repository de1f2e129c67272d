from django.core.management.base import BaseCommand

from quality.facts import relation


class Command(BaseCommand):
    help = "Export the relation model (the base model with its adapter merged) to ONNX once."

    requires_system_checks = []

    def handle(self, *args, **options):
        self.stdout.write(f"ONNX relation model: {relation.model_file()}")
