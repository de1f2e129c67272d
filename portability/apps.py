from django.apps import AppConfig


class PortabilityConfig(AppConfig):
    name = "portability"
    verbose_name = "Export and import"

    def ready(self):
        from memsite import jobs
        from portability import queries

        jobs.register_progress(queries.IMPORT_TASK, queries.import_progress)
