from django.urls import path

from dashboard import views

app_name = "dashboard"
urlpatterns = [
    path("", views.overview, name="overview"),
    path("quality/", views.quality, name="quality"),
    path("inconsistencies/", views.inconsistencies, name="inconsistencies"),
    path("boosts/", views.boosts, name="boosts"),
    path("memories/<uuid:memory_id>/", views.memory_detail, name="memory"),
    path("consolidation/", views.consolidation, name="consolidation"),
]
