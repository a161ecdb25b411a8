from django.urls import path

from core import converters  # noqa: F401  (registers the id path converter)

from . import views

urlpatterns = [
    path("games/<id:game_id>/win-bar/", views.bar, name="bar"),
    path("games/<id:game_id>/win-bar/toggle/", views.toggle, name="toggle"),
    path("games/<id:game_id>/win-hint/", views.hint, name="hint"),
]
