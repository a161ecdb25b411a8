"""ASGI entry point: HTTP through Django, WebSockets through Channels (same origin, logged-in session)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "penta.settings")
# Django must be set up before anything imports models (the routing below does).
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from dicegame.play.sweeper import ClockMiddleware  # noqa: E402
from dicegame.web.routing import websocket_urlpatterns  # noqa: E402
from live.limits import HandshakeLimit  # noqa: E402

application = ClockMiddleware(
    ProtocolTypeRouter(
        {
            "http": django_asgi_app,
            "websocket": HandshakeLimit(
                AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))
            ),
        }
    )
)
