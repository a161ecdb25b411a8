from django.contrib import admin
from django.urls import include, path

from dicegame import views

game_patterns = [
    path("", views.home, name="home"),
    path("healthz/", views.healthz, name="healthz"),
    path("games/", views.history, name="history"),
    path("games/solo/", views.game_new_solo, name="new_solo"),
    path("games/computer/", views.game_new_vs_computer, name="new_vs_computer"),
    path("games/<int:game_id>/", views.game_detail, name="game"),
    path("games/<int:game_id>/hurry/", views.game_hurry, name="hurry"),
    path("games/<int:game_id>/hints/", views.game_hints, name="hints"),
    path("games/<int:game_id>/roll/", views.game_roll, name="roll"),
    path("games/<int:game_id>/hold/<int:die>/", views.game_hold, name="hold"),
    path("games/<int:game_id>/choose/<str:box>/", views.game_choose, name="choose"),
    path("games/<int:game_id>/confirm/", views.game_confirm, name="confirm"),
    path("games/<int:game_id>/tick/", views.game_tick, name="tick"),
]

urlpatterns = [
    path("", include((game_patterns, "dicegame"))),
    path("", include(("dicegame.review_urls", "review"))),
    path("accounts/", include("accounts.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
]
