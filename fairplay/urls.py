from django.urls import path

from core import converters  # noqa: F401  (registers the id path converter)
from fairplay import views

urlpatterns = [
    path("", views.fair_play, name="page"),
    path("games/<id:game_id>/hidden/", views.hidden, name="hidden"),
    path("report/<str:username>/", views.report_person, name="report_person"),
]
