"""Reviewing past games: replay with optimal-play analysis, statistics, leaderboards, exports."""

from django.urls import path

from core import converters  # noqa: F401  (registers the id path converter)
from review import views as views

urlpatterns = [
    path("games/<id:game_id>/review/", views.game_review, name="review"),
    path("games/<id:game_id>/export.json", views.game_export_json, name="export_json"),
    path("games/export.csv", views.history_export_csv, name="export_csv"),
    path("players/", views.my_stats, name="me"),
    path("players/<str:username>/", views.player_detail, name="player"),
    path("players/<str:username>/leaderboard/", views.player_opt_in, name="opt_in"),
    path("leaderboard/", views.leaderboard, name="leaderboard"),
]
