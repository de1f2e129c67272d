from django.apps import AppConfig


class QualityConfig(AppConfig):
    name = "quality"
    verbose_name = "Quality and consolidation"

    def ready(self):
        from graph.signals import supersession_changed
        from memories.signals import reembedded
        from quality.metrics import reevaluate_superseded
        from quality.supersession import reembed_frames

        supersession_changed.connect(reevaluate_superseded, dispatch_uid="quality.reevaluate_superseded")
        reembedded.connect(reembed_frames, dispatch_uid="quality.reembed_frames")
