from django.urls import path

from memories.api import views

urlpatterns = [
    path("memory", views.MemoryCreateView.as_view(), name="memory-create"),
    path("memory/batch", views.MemoryBatchView.as_view(), name="memory-batch"),
    path("memory/by-tag", views.ByTagView.as_view(), name="memory-by-tag"),
    path("memory/<str:memory_id>", views.MemoryDetailView.as_view(), name="memory-detail"),
    path("memory/<str:memory_id>/corroborate", views.CorroborateView.as_view(), name="memory-corroborate"),
    path("memory/<str:memory_id>/archive", views.ArchiveView.as_view(), name="memory-archive"),
    path("memory/<str:memory_id>/restore", views.RestoreView.as_view(), name="memory-restore"),
    path("recall", views.RecallView.as_view(), name="recall"),
    path("admin/reembed", views.ReembedView.as_view(), name="admin-reembed"),
]
