"""The root URLs: each app's own, under its namespace."""

from django.contrib import admin
from django.urls import include, path

from accounts import account_views

urlpatterns = [
    path("", include(("dicegame.web.urls", "dicegame"))),
    path("", include(("review.urls", "review"))),
    path("accounts/", include("accounts.urls")),
    path("privacy/", account_views.privacy, name="privacy"),
    path("report/", include(("feedback.urls", "feedback"))),
    path("daily/", include(("daily.urls", "daily"))),
    path("", include(("winprob.urls", "winprob"))),
    path("puzzles/", include(("puzzles.urls", "puzzles"))),
    path("notifications/", include("notifications.urls")),
    path("fair-play/", include(("fairplay.urls", "fairplay"))),
    path("tournaments/", include(("tournaments.urls", "tournaments"))),
    path("", include(("chat.urls", "chat"))),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
]
