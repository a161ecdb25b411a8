"""The site's URLs and the benchmarks' baseline: a view that does nothing, through the whole middleware
stack as every action goes (/healthz/ is answered before the stack, for the proxy's checks)."""

from django.urls import path

from dicegame.web import views
from penta.urls import urlpatterns as site

urlpatterns = [path("bench/bare/", views.healthz), *site]
