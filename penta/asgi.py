"""ASGI entry point: HTTP through Django, WebSockets through Channels (same origin, logged-in session)."""

import gc
import os

from penta.request_threads import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "penta.settings")
# Django must be set up before anything imports models (the routing below does).
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from dicegame.play.sweeper import ClockMiddleware  # noqa: E402
from live.limits import HandshakeLimit  # noqa: E402
from penta.routing import websocket_urlpatterns  # noqa: E402


def build(routes: list) -> ClockMiddleware:
    """The site with these WebSocket routes (the benchmarks' server adds its bare consumers)."""
    return ClockMiddleware(
        ProtocolTypeRouter(
            {
                "http": django_asgi_app,
                "websocket": HandshakeLimit(
                    AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(routes)))
                ),
            }
        )
    )


application = build(websocket_urlpatterns)

# Everything loaded so far (Django, the apps, the templates' modules: some 140,000 objects) lives as long as
# the process: moved out of the garbage collector's sight, a full collection scans only what requests made
# since (0.1 ms) instead of walking them all while every socket of the process waits (160-200 ms of CPU
# on this project's machine, a live action's p99 many times over).
gc.freeze()
