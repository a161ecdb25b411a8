"""Penta's configuration: settings, the root URLs, the ASGI and WSGI entry points, the middleware that
answers before the apps, and the production server entry point (`python -m penta.server`)."""
