from django.urls import path

from graph.api import views

urlpatterns = [
    path("associate", views.AssociateView.as_view(), name="associate"),
    path("association/<int:association_id>", views.AssociationDetailView.as_view(), name="association"),
    path(
        "association/<int:association_id>/promote",
        views.PromoteDiscoveredView.as_view(),
        name="association-promote",
    ),
    path("graph/neighbors/<str:memory_id>", views.NeighborsView.as_view(), name="graph-neighbors"),
    path("graph/snapshot", views.SnapshotView.as_view(), name="graph-snapshot"),
    path("graph/stats", views.StatsView.as_view(), name="graph-stats"),
    path("graph/relations", views.RelationsView.as_view(), name="graph-relations"),
    path("graph/aliases", views.AliasesView.as_view(), name="graph-aliases"),
    path("memories/<str:memory_id>/related", views.RelatedView.as_view(), name="memory-related"),
    path("enrichment/status", views.EnrichmentStatusView.as_view(), name="enrichment-status"),
    path("enrichment/reprocess", views.EnrichmentReprocessView.as_view(), name="enrichment-reprocess"),
]
