"""The game's URLs: playing solo, against the computer, with friends and on one device."""

from django.urls import path

from core import converters  # noqa: F401  (registers the id and index path converters)
from dicegame.web import challenges as challenge_views
from dicegame.web import local as local_views
from dicegame.web import play_settings, pwa, seeks, views
from dicegame.web import rooms as room_views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz/", views.healthz, name="healthz"),
    path("games/", views.history, name="history"),
    # The games waiting for the person's move: the header's count and the home page's list, refreshed
    # when the notice socket says they changed.
    path("games/waiting/", views.waiting, name="waiting"),
    # A person's settings for play (guests too): the time to choose a box, the computer's speed.
    path("settings/", play_settings.play_settings, name="settings"),
    # The installable app: its manifest, the service worker (at the root, so that it controls every
    # page) and the page shown offline.
    path("manifest.webmanifest", pwa.manifest, name="manifest"),
    path("sw.js", pwa.service_worker, name="service_worker"),
    path("offline/", pwa.offline, name="offline"),
    path("games/solo/", views.game_new_solo, name="new_solo"),
    path("games/computer/", views.game_new_vs_computer, name="new_vs_computer"),
    # Local games (pass and play) and linking a column to a friend.
    path("games/local/", local_views.local_new, name="new_local"),
    path("games/<id:game_id>/link/", local_views.local_link, name="local_link"),
    path("links/<id:link_id>/accept/", local_views.local_link_accept, name="local_link_accept"),
    path("links/<id:link_id>/decline/", local_views.local_link_decline, name="local_link_decline"),
    path("games/<id:game_id>/", views.game_detail, name="game"),
    path("games/<id:game_id>/hurry/", views.game_hurry, name="hurry"),
    path("games/<id:game_id>/hints/", views.game_hints, name="hints"),
    path("games/<id:game_id>/roll/", views.game_roll, name="roll"),
    path("games/<id:game_id>/hold/<index:die>/", views.game_hold, name="hold"),
    path("games/<id:game_id>/choose/<str:box>/", views.game_choose, name="choose"),
    path("games/<id:game_id>/confirm/", views.game_confirm, name="confirm"),
    path("games/<id:game_id>/tick/", views.game_tick, name="tick"),
    path("games/<id:game_id>/resign/", views.game_resign, name="resign"),
    path("games/<id:game_id>/leave/", room_views.seat_leave, name="leave"),
    # Games against friends.
    path("games/friends/", room_views.room_new, name="new_room"),
    path("games/join/<str:token>/", room_views.room_join, name="join"),
    path("games/<id:game_id>/invite/", room_views.room_invite, name="invite"),
    path("games/<id:game_id>/invitation/accept/", room_views.invitation_accept, name="invitation_accept"),
    path("games/<id:game_id>/invitation/decline/", room_views.invitation_decline, name="invitation_decline"),
    path("games/<id:game_id>/computer/", room_views.room_add_computer, name="add_computer"),
    path("games/<id:game_id>/seats/<index:seat>/remove/", room_views.room_remove_seat, name="remove_seat"),
    path("games/<id:game_id>/new-link/", room_views.room_new_link, name="new_link"),
    path("games/<id:game_id>/cancel/", room_views.room_cancel, name="cancel"),
    path("games/<id:game_id>/start/", room_views.room_start, name="start"),
    path("games/<id:game_id>/take-back/", room_views.seat_take_back, name="take_back"),
    path("games/<id:game_id>/rematch/", room_views.rematch, name="rematch"),
    # Challenges: a friend (or any player) one tap from a game.
    path("challenges/", challenge_views.challenge_create, name="challenge_create"),
    path("challenges/new/<str:username>/", challenge_views.challenge_new, name="challenge_new"),
    path("challenges/<id:challenge_id>/", challenge_views.challenge_detail, name="challenge"),
    path("challenges/<id:challenge_id>/accept/", challenge_views.challenge_accept, name="challenge_accept"),
    path(
        "challenges/<id:challenge_id>/decline/", challenge_views.challenge_decline, name="challenge_decline"
    ),
    path("challenges/<id:challenge_id>/cancel/", challenge_views.challenge_cancel, name="challenge_cancel"),
    # A game with someone new: live, paired while the page waits; and the open correspondence games.
    path("play/now/", seeks.play_now, name="play_now"),
    path("play/now/<id:seek_id>/", seeks.play_now_wait, name="play_now_wait"),
    path("play/now/<id:seek_id>/cancel/", seeks.play_now_cancel, name="play_now_cancel"),
    path("play/now/<id:seek_id>/computer/", seeks.play_now_computer, name="play_now_computer"),
    path("play/open/", seeks.open_games, name="open_games"),
    path("play/open/<id:seek_id>/accept/", seeks.open_game_accept, name="open_game_accept"),
    path("play/open/<id:seek_id>/cancel/", seeks.open_game_cancel, name="open_game_cancel"),
]
