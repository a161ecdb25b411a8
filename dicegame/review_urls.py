"""Reviewing past games: replay with optimal-play analysis, statistics, leaderboards, exports."""

urlpatterns: list = []
