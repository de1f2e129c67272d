from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from memsite import views
from memsite.api.jobs import JobView

urlpatterns = [
    path("", views.home, name="home"),
    path("health", views.health, name="health"),
    path("metrics", views.metrics, name="metrics"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("api/jobs/<int:job_id>", JobView.as_view(), name="job"),
    path("", include("memories.api.urls")),
    path("", include("graph.api.urls")),
    path("", include("portability.api.urls")),
    path("api/", include("quality.api.urls")),
    path("dashboard/", include("dashboard.urls")),
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
]

handler400 = "memsite.views.bad_request"
handler403 = "memsite.views.permission_denied"
handler404 = "memsite.views.not_found"
handler500 = "memsite.views.server_error"
