"""WebSocket routes. Live multiplayer adds its consumers here."""

websocket_urlpatterns: list = []
