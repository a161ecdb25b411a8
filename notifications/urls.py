from django.urls import path

from core import converters  # noqa: F401  (registers the id path converter)
from notifications import views

app_name = "notifications"

urlpatterns = [
    path("", views.preferences, name="preferences"),
    path("devices/", views.device_add, name="device_add"),
    path("devices/<id:device_id>/remove/", views.device_remove, name="device_remove"),
    path("mail/", views.mail_set, name="mail"),
    path("mail/confirm/<str:token>/", views.mail_confirm, name="confirm"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
]
