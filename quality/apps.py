from django.apps import AppConfig


class QualityConfig(AppConfig):
    name = "quality"
    verbose_name = "Quality and consolidation"

    def ready(self):
        from graph.signals import supersession_changed
        from quality.metrics import reevaluate_superseded

        supersession_changed.connect(reevaluate_superseded, dispatch_uid="quality.reevaluate_superseded")
