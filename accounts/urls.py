from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import account_views, friends_views, password_views, two_factor, views
from core import converters  # noqa: F401  (registers the id path converter)

app_name = "accounts"

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("login/code/", two_factor.login_code, name="login_code"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password/", views.PasswordChangeView.as_view(), name="password_change"),
    path("password/forgot/", password_views.PasswordResetView.as_view(), name="password_reset"),
    path("password/forgot/sent/", password_views.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "password/reset/<uidb64>/<token>/",
        password_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path("preferences/", views.preferences, name="preferences"),
    path("preferences/privacy/", views.privacy_set, name="privacy_set"),
    path("blocks/", views.block, name="block"),
    path("blocks/<id:block_id>/remove/", views.unblock, name="unblock"),
    path("sessions/", account_views.sessions, name="sessions"),
    path("sessions/others/", account_views.sessions_end_others, name="sessions_end_others"),
    path("sessions/<id:session_id>/end/", account_views.session_end, name="session_end"),
    path("two-factor/", two_factor.settings_page, name="two_factor"),
    path("two-factor/start/", two_factor.start, name="two_factor_start"),
    path("two-factor/confirm/", two_factor.confirm, name="two_factor_confirm"),
    path("two-factor/codes/", two_factor.recovery_codes, name="two_factor_codes"),
    path("two-factor/off/", two_factor.disable, name="two_factor_disable"),
    path("export/", account_views.export_page, name="export"),
    path("export/ask/", account_views.export_request, name="export_request"),
    path("export/<str:token>/", account_views.export_download, name="export_download"),
    path("delete/", account_views.delete_account, name="delete"),
    path("friends/", friends_views.friends, name="friends"),
    path("friends/request/", friends_views.friend_request_send, name="friend_request_send"),
    path(
        "friends/requests/<id:request_id>/accept/",
        friends_views.friend_request_accept,
        name="friend_request_accept",
    ),
    path(
        "friends/requests/<id:request_id>/decline/",
        friends_views.friend_request_decline,
        name="friend_request_decline",
    ),
    path("friends/<id:friend_id>/remove/", friends_views.friend_remove, name="friend_remove"),
]
