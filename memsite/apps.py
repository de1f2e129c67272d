from django.apps import AppConfig


class MemsiteConfig(AppConfig):
    name = "memsite"
    verbose_name = "API access"

    def ready(self):
        from memsite import prometheus

        prometheus.register()
