from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import friends_views, views
from core import converters  # noqa: F401  (registers the id path converter)

app_name = "accounts"

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password/", views.PasswordChangeView.as_view(), name="password_change"),
    path("preferences/", views.preferences, name="preferences"),
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
