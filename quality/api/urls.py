from django.urls import path

from quality.api import consolidation, views

urlpatterns = [
    path("quality/distribution", views.DistributionView.as_view(), name="quality-distribution"),
    path("quality/memories/<str:memory_id>", views.MemoryQualityView.as_view(), name="quality-memory"),
    path("quality/evaluate", views.EvaluateView.as_view(), name="quality-evaluate"),
    path("quality/report", views.ReportView.as_view(), name="quality-report"),
    path("quality/improvements", views.ImprovementsView.as_view(), name="quality-improvements"),
    path("quality/low", views.LowQualityView.as_view(), name="quality-low"),
    path("quality/inconsistencies", views.InconsistencyListView.as_view(), name="quality-inconsistencies"),
    path("quality/inconsistencies/detect", views.DetectView.as_view(), name="quality-detect"),
    path(
        "quality/inconsistencies/<int:pk>",
        views.InconsistencyDetailView.as_view(),
        name="quality-inconsistency",
    ),
    path("quality/inconsistencies/<int:pk>/resolve", views.ResolveView.as_view(), name="quality-resolve"),
    path(
        "quality/inconsistencies/<int:pk>/reclassify",
        views.ReclassifyView.as_view(),
        name="quality-reclassify",
    ),
    path("quality/inconsistencies/<int:pk>/dismiss", views.DismissView.as_view(), name="quality-dismiss"),
    path("quality/boosts", views.BoostListView.as_view(), name="quality-boosts"),
    path("quality/trends", views.TrendsView.as_view(), name="quality-trends"),
    path(
        "quality/memories/<str:memory_id>/reset-boost",
        consolidation.ResetBoostView.as_view(),
        name="quality-reset-boost",
    ),
    path("consolidation/run", consolidation.ConsolidationRunView.as_view(), name="consolidation-run"),
    path("consolidation/runs", consolidation.ConsolidationRunListView.as_view(), name="consolidation-runs"),
    path(
        "consolidation/runs/<int:run_id>",
        consolidation.ConsolidationRunDetailView.as_view(),
        name="consolidation-run-detail",
    ),
]
