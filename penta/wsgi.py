"""WSGI entry point (the game is served over ASGI by daphne; this serves plain HTTP tools)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "penta.settings")
application = get_wsgi_application()
