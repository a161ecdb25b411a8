from django.urls import path

from core import converters  # noqa: F401  (registers the id path converter)
from puzzles import views

urlpatterns = [
    path("", views.index, name="index"),
    path("next/", views.next_puzzle, name="next"),
    path("<id:puzzle_id>/", views.puzzle, name="puzzle"),
]
