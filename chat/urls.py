from django.urls import path

from chat import views

app_name = "chat"

urlpatterns = [
    path("games/<id:game_id>/chat/", views.drawer, name="drawer"),
    path("games/<id:game_id>/chat/say/", views.say, name="say"),
    path("chat/lines/<id:line_id>/report/", views.report, name="report"),
    path("chat/settings/", views.settings, name="settings"),
]
