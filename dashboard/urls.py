from django.urls import path

from dashboard import findings, moving, views

app_name = "dashboard"
urlpatterns = [
    path("", views.overview, name="overview"),
    path("quality/", views.quality, name="quality"),
    path("inconsistencies/", findings.inconsistencies, name="inconsistencies"),
    path("inconsistencies/bulk/", findings.bulk, name="bulk_findings"),
    path("supersessions/", findings.supersessions, name="supersessions"),
    path("inconsistencies/<int:pk>/resolve/", findings.resolve, name="resolve"),
    path("inconsistencies/<int:pk>/reclassify/", findings.reclassify, name="reclassify"),
    path("boosts/", views.boosts, name="boosts"),
    path("memories/", views.memories, name="memories"),
    path("memories/<uuid:memory_id>/", views.memory_detail, name="memory"),
    path("recall/", views.recall_explorer, name="recall"),
    path("memories/<uuid:memory_id>/reset-boost/", views.reset_memory_boost, name="reset_boost"),
    path("memories/<uuid:memory_id>/archive/", views.archive_memory, name="archive"),
    path("memories/<uuid:memory_id>/restore/", views.restore_memory, name="restore"),
    path("consolidation/", views.consolidation, name="consolidation"),
    path("consolidation/start/", views.start_consolidation, name="start_consolidation"),
    path("consolidation/runs/<int:pk>/progress/", views.run_progress, name="run_progress"),
    path("moving/", moving.moving, name="moving"),
    path("export/", moving.export, name="export"),
    path("import/", moving.start_import, name="start_import"),
    path("imports/<int:pk>/", moving.import_detail, name="import"),
    path("imports/<int:pk>/progress/", moving.import_progress, name="import_progress"),
    path("jobs/", views.jobs_page, name="jobs"),
    path("jobs/<int:job_id>/retry/", views.retry_job, name="retry_job"),
]
