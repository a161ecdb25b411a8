"""Views for tests/penta/test_request_threads.py: where a request ran, and one that waits to be let go."""

import threading

from django.db import connections
from django.http import JsonResponse
from django.urls import path

# The waiting view's gate and how many requests are inside it at once.
gate = threading.Event()
inside = {"now": 0, "most": 0}
_count = threading.Lock()


def where(request):
    return JsonResponse({"thread": threading.get_ident(), "connection": id(connections["default"])})


def wait(request):
    with _count:
        inside["now"] += 1
        inside["most"] = max(inside["most"], inside["now"])
    try:
        gate.wait(timeout=10)
    finally:
        with _count:
            inside["now"] -= 1
    return JsonResponse({"thread": threading.get_ident()})


urlpatterns = [path("where/", where), path("wait/", wait)]
