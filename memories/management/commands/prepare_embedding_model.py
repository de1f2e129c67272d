from django.core.management.base import BaseCommand

from memories import embeddings


class Command(BaseCommand):
    help = "Export the embedding model to ONNX once, so that no process has to do it on first use."

    requires_system_checks = []

    def handle(self, *args, **options):
        self.stdout.write(f"ONNX model: {embeddings.onnx_model_file()}")
