from django.urls import path

from portability.api import views

urlpatterns = [
    path("export", views.ExportView.as_view(), name="export"),
    path("import", views.ImportView.as_view(), name="import"),
    path("import/<int:import_id>", views.ImportDetailView.as_view(), name="import-detail"),
]
