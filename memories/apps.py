from django.apps import AppConfig


class MemoriesConfig(AppConfig):
    name = "memories"
