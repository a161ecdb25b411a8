"""The benchmarks' server: the site, plus the bare Channels consumers the live bench measures against
(ws/echo/, ws/relay/<pair>/<role>/)."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")

from django.urls import path

from bench.echo import EchoConsumer, RelayConsumer
from penta import asgi

application = asgi.build(
    [
        *asgi.websocket_urlpatterns,
        path("ws/echo/", EchoConsumer.as_asgi()),
        path("ws/relay/<slug:pair>/<slug:role>/", RelayConsumer.as_asgi()),
    ]
)
