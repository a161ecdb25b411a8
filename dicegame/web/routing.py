"""WebSocket routes: one socket per game screen (players and spectators), one per page for notices, one
per open tournament page (its standings)."""

from django.conf import settings
from django.urls import path

from dicegame import converters  # noqa: F401  (registers the id path converter)
from dicegame.web.consumers import GameConsumer, NotificationConsumer
from live.echo import EchoConsumer, RelayConsumer
from tournaments.consumers import TournamentConsumer

websocket_urlpatterns = [
    path("ws/games/<id:game_id>/", GameConsumer.as_asgi()),
    path("ws/notifications/", NotificationConsumer.as_asgi()),
    path("ws/tournaments/<id:tournament_id>/", TournamentConsumer.as_asgi()),
]

if settings.PENTA_BENCH_ECHO:  # the bare Channels baselines of bench/live_games.py
    websocket_urlpatterns += [
        path("ws/echo/", EchoConsumer.as_asgi()),
        path("ws/relay/<slug:pair>/<slug:role>/", RelayConsumer.as_asgi()),
    ]
