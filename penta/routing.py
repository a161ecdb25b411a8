"""WebSocket routes: one socket per game screen (players and spectators), one per page for notices, one
per open tournament page (its standings)."""

from django.urls import path

from core import converters  # noqa: F401  (registers the id path converter)
from live.consumers import GameConsumer, NotificationConsumer
from tournaments.consumers import TournamentConsumer

websocket_urlpatterns = [
    path("ws/games/<id:game_id>/", GameConsumer.as_asgi()),
    path("ws/notifications/", NotificationConsumer.as_asgi()),
    path("ws/tournaments/<id:tournament_id>/", TournamentConsumer.as_asgi()),
]
