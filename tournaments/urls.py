from django.urls import path

from core import converters  # noqa: F401  (registers the id path converter)
from tournaments import views

urlpatterns = [
    path("", views.index, name="index"),
    path("new/", views.create, name="create"),
    path("<id:tournament_id>/", views.detail, name="detail"),
    path("<id:tournament_id>/enter/", views.enter, name="enter"),
    path("<id:tournament_id>/leave/", views.leave, name="leave"),
    path("<id:tournament_id>/play/", views.play, name="play"),
]
