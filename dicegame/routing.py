"""WebSocket routes: one socket per game screen (players and spectators), one per page for notices."""

from django.urls import path

from accounts.consumers import NotificationConsumer
from dicegame.consumers import GameConsumer

websocket_urlpatterns = [
    path("ws/games/<int:game_id>/", GameConsumer.as_asgi()),
    path("ws/notifications/", NotificationConsumer.as_asgi()),
]
