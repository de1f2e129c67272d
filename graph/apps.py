from django.apps import AppConfig


class GraphConfig(AppConfig):
    name = "graph"
    verbose_name = "Knowledge graph"
