"""Rooms before the start: removal is final, a new invitation link, cancelling a room."""

import pytest

from dicegame import play
from dicegame.errors import GameActionError, GameNotFound
from dicegame.models import Game, Invitation
from dicegame.play import rooms, selectors
from dicegame.play.lobby import game_invitations_pending
from notifications.notices import _event
from tests.support import HX
from tests.support.factories import UserFactory, actor, befriend, client_for
from tests.support.games import snapshot

pytestmark = pytest.mark.django_db
REMOVED = "The host removed you from this room."
REMOVED_NL = "De organisator heeft je uit dit spel verwijderd."
CANCELLED = "The host cancelled this room."


def room_snapshot(game_id: int) -> tuple:
    """`snapshot` and what a room adds to it: its link and its invitations."""
    game = Game.objects.get(pk=game_id)
    invitations = list(Invitation.objects.filter(game_id=game_id).order_by("pk").values())
    return (*snapshot(game_id), game.invite_token, invitations)


@pytest.fixture
def notices(monkeypatch):
    """The live notices sent (user id, html in the default language), instead of sending them."""

    sent = []
    monkeypatch.setattr(
        "notifications.notices.notify_user",
        lambda user_id, notice: sent.append((user_id, _event(notice)["html"])),
    )
    return sent


# -- 1. removal is final -----------------------------------------------------------------------------


def test_a_removed_invited_player_cannot_take_the_seat_back(room, host, friend):
    rooms.room_invite(game_id=room.pk, actor=actor(host), username=friend.username)
    rooms.room_accept_invitation(game_id=room.pk, actor=actor(friend))
    rooms.room_remove_seat(game_id=room.pk, actor=actor(host), seat=1)
    assert Invitation.objects.get(game=room, to_user=friend).status == Invitation.Status.REMOVED
    before = room_snapshot(room.pk)
    with pytest.raises(GameActionError, match=REMOVED) as exc:
        rooms.room_accept_invitation(game_id=room.pk, actor=actor(friend))
    assert exc.value.status == 403
    with pytest.raises(GameActionError, match=REMOVED) as exc:
        rooms.room_join_by_link(token=room.invite_token, actor=actor(friend))
    assert exc.value.status == 403
    assert room_snapshot(room.pk) == before
    assert not room.players.filter(user=friend).exists()


def test_a_removed_link_joiner_cannot_come_back_by_the_link(room, host):
    joiner = UserFactory()
    rooms.room_join_by_link(token=room.invite_token, actor=actor(joiner))
    rooms.room_remove_seat(game_id=room.pk, actor=actor(host), seat=1)
    removal = Invitation.objects.get(game=room, to_user=joiner)
    assert removal.status == Invitation.Status.REMOVED and removal.from_user == host
    # Not listed as an invitation anywhere.
    assert not game_invitations_pending(joiner.pk).exists()
    before = room_snapshot(room.pk)
    c = client_for(joiner)
    for response in (c.get(f"/games/join/{room.invite_token}/"), c.post(f"/games/join/{room.invite_token}/")):
        assert response.status_code == 403
        assert REMOVED in response.content.decode()
    response = c.post(f"/games/{room.pk}/invitation/accept/", **HX)
    assert response.status_code == 403 and REMOVED in response.content.decode()
    assert room_snapshot(room.pk) == before


def test_the_refusal_is_in_dutch_too(room, host):
    joiner = UserFactory()
    rooms.room_join_by_link(token=room.invite_token, actor=actor(joiner))
    rooms.room_remove_seat(game_id=room.pk, actor=actor(host), seat=1)
    response = client_for(joiner).post(f"/games/join/{room.invite_token}/", HTTP_ACCEPT_LANGUAGE="nl")
    assert response.status_code == 403 and REMOVED_NL in response.content.decode()


def test_the_freed_seat_can_go_to_someone_else_but_not_back(room, host, friend):
    rooms.room_invite(game_id=room.pk, actor=actor(host), username=friend.username)
    rooms.room_accept_invitation(game_id=room.pk, actor=actor(friend))
    rooms.room_remove_seat(game_id=room.pk, actor=actor(host), seat=1)
    other = UserFactory(username="otto")
    befriend(host, other)
    rooms.room_invite(game_id=room.pk, actor=actor(host), username=other.username)
    assert rooms.room_accept_invitation(game_id=room.pk, actor=actor(other)).seat == 1
    assert rooms.room_join_by_link(token=room.invite_token, actor=actor(UserFactory())).seat == 2
    # Nor can a player in the room invite the removed one back.
    befriend(other, friend)
    before = room_snapshot(room.pk)
    for who in (host, other):
        with pytest.raises(GameActionError, match=r"The host removed femke from this room\.") as exc:
            rooms.room_invite(game_id=room.pk, actor=actor(who), username=friend.username)
        assert exc.value.status == 403
    assert room_snapshot(room.pk) == before


def test_the_removed_player_is_told_live(room, host, friend, notices, django_capture_on_commit_callbacks):
    rooms.room_invite(game_id=room.pk, actor=actor(host), username=friend.username)
    rooms.room_accept_invitation(game_id=room.pk, actor=actor(friend))
    notices.clear()
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(host).post(f"/games/{room.pk}/seats/1/remove/", **HX)
    assert response.status_code == 200
    assert [user_id for user_id, _ in notices] == [friend.pk]
    assert f"hana removed you from game {room.pk}." in notices[0][1]
    assert 'id="notifications"' in notices[0][1]


def test_removing_a_computer_player_records_nothing(room, host, notices, django_capture_on_commit_callbacks):
    rooms.room_add_computer(game_id=room.pk, actor=actor(host), strength="easy")
    with django_capture_on_commit_callbacks(execute=True):
        rooms.room_remove_seat(game_id=room.pk, actor=actor(host), seat=1)
    assert not Invitation.objects.exists() and notices == []


def test_the_lobby_tells_a_removed_friend_and_offers_them_nothing(room, host, friend):
    rooms.room_invite(game_id=room.pk, actor=actor(host), username=friend.username)
    rooms.room_accept_invitation(game_id=room.pk, actor=actor(friend))
    rooms.room_remove_seat(game_id=room.pk, actor=actor(host), seat=1)
    # A friend of the host may still watch the room, and is told why they have no seat.
    html = client_for(friend).get(f"/games/{room.pk}/").content.decode()
    assert REMOVED in html and "Take a seat" not in html and room.invite_token not in html
    # The host is not offered to invite them again.
    html = client_for(host).get(f"/games/{room.pk}/").content.decode()
    assert '<option value="femke">' not in html


def test_a_removal_no_longer_counts_as_an_invitation_to_watch(room, host):
    joiner = UserFactory()
    rooms.room_join_by_link(token=room.invite_token, actor=actor(joiner))
    rooms.room_remove_seat(game_id=room.pk, actor=actor(host), seat=1)
    game = Game.objects.get(pk=room.pk)
    assert not selectors.game_visible(game=game, actor=actor(joiner))
    assert client_for(joiner).get(f"/games/{room.pk}/").status_code == 404


# -- 2. a new link -----------------------------------------------------------------------------------


def test_the_host_makes_a_new_link_and_the_old_one_stops_working(room, host):
    old = room.invite_token
    c = client_for(host)
    html = c.get(f"/games/{room.pk}/").content.decode()
    assert f'action="/games/{room.pk}/new-link/"' in html
    response = c.post(f"/games/{room.pk}/new-link/", **HX)
    assert response.status_code == 200
    room.refresh_from_db()
    assert room.invite_token != old and len(room.invite_token) >= 32
    assert f"/games/join/{room.invite_token}/" in response.content.decode()
    stranger = client_for(UserFactory())
    response = stranger.get(f"/games/join/{old}/")
    assert response.status_code == 404 and "This invitation link is not valid." in response.content.decode()
    assert stranger.post(f"/games/join/{old}/").status_code == 404
    assert stranger.get(f"/games/{room.pk}/?t={old}").status_code == 404
    assert stranger.get(f"/games/join/{room.invite_token}/").status_code == 200
    with pytest.raises(GameNotFound):
        rooms.room_join_by_link(token=old, actor=actor(UserFactory()))


def test_only_the_host_makes_a_new_link_and_only_before_the_start(room, host, friend):
    rooms.room_join_by_link(token=room.invite_token, actor=actor(friend))
    assert (
        f'action="/games/{room.pk}/new-link/"'
        not in client_for(friend).get(f"/games/{room.pk}/").content.decode()
    )
    before = room_snapshot(room.pk)
    response = client_for(friend).post(f"/games/{room.pk}/new-link/", **HX)
    assert response.status_code == 403 and "Only the host can do that." in response.content.decode()
    response = client_for(UserFactory()).post(f"/games/{room.pk}/new-link/", **HX)
    assert response.status_code == 404
    assert room_snapshot(room.pk) == before
    rooms.room_start(game_id=room.pk, actor=actor(host))
    before = room_snapshot(room.pk)
    response = client_for(host).post(f"/games/{room.pk}/new-link/", **HX)
    assert response.status_code == 409 and "already started" in response.content.decode()
    assert room_snapshot(room.pk) == before


def test_room_posts_need_the_csrf_token(room, host):
    c = client_for(host, enforce_csrf_checks=True)
    before = room_snapshot(room.pk)
    for url in (f"/games/{room.pk}/new-link/", f"/games/{room.pk}/cancel/"):
        response = c.post(url, **HX)
        assert response.status_code == 403 and "security token" in response.content.decode()
    assert room_snapshot(room.pk) == before
    assert client_for(host).get(f"/games/{room.pk}/new-link/").status_code == 405


# -- 3. cancelling a room ----------------------------------------------------------------------------


def test_the_host_cancels_a_room(room, host, friend, notices, django_capture_on_commit_callbacks):
    linked = UserFactory()
    rooms.room_join_by_link(token=room.invite_token, actor=actor(linked))
    rooms.room_invite(game_id=room.pk, actor=actor(host), username=friend.username)
    assert [i.game_id for i in game_invitations_pending(friend.pk)] == [room.pk]
    c = client_for(host)
    html = c.get(f"/games/{room.pk}/").content.decode()
    assert f'action="/games/{room.pk}/cancel/"' in html and "Yes, cancel this room" in html
    notices.clear()
    with django_capture_on_commit_callbacks(execute=True):
        response = c.post(f"/games/{room.pk}/cancel/", **HX)
    assert response.status_code == 200 and response["HX-Redirect"] == f"/games/{room.pk}/"
    room.refresh_from_db()
    assert room.status == Game.Status.CANCELLED
    # The seated players are told (not the host); the invitation is no longer listed.
    assert [user_id for user_id, _ in notices] == [linked.pk]
    assert f"hana cancelled game {room.pk} before it started." in notices[0][1]
    assert not game_invitations_pending(friend.pk).exists()
    assert f"/games/{room.pk}/" not in client_for(friend).get("/accounts/friends/").content.decode()
    # The page says so, and offers nothing.
    for viewer in (c, client_for(linked)):
        html = viewer.get(f"/games/{room.pk}/").content.decode()
        assert "This room was cancelled" in html and "Cancelled" in html
        assert (
            "Start the game" not in html
            and 'ws-connect="/ws/games' not in html
            and room.invite_token not in html
        )
    html = client_for(linked).get(f"/games/{room.pk}/", HTTP_ACCEPT_LANGUAGE="nl").content.decode()
    assert "Geannuleerd" in html


def test_every_action_on_a_cancelled_room_is_refused(room, host, friend):
    befriend(host, other := UserFactory(username="otto"))
    rooms.room_invite(game_id=room.pk, actor=actor(host), username=friend.username)
    linked = UserFactory()
    rooms.room_join_by_link(token=room.invite_token, actor=actor(linked))
    rooms.room_cancel(game_id=room.pk, actor=actor(host))
    before = room_snapshot(room.pk)
    refusals = [
        (host, f"/games/{room.pk}/invite/", {"username": other.username}),
        (host, f"/games/{room.pk}/computer/", {"strength": "easy"}),
        (host, f"/games/{room.pk}/seats/1/remove/", {}),
        (host, f"/games/{room.pk}/start/", {}),
        (host, f"/games/{room.pk}/new-link/", {}),
        (host, f"/games/{room.pk}/cancel/", {}),
        (friend, f"/games/{room.pk}/invitation/accept/", {}),
        (friend, f"/games/{room.pk}/invitation/decline/", {}),
        (UserFactory(), f"/games/join/{room.invite_token}/", {}),
        (linked, f"/games/{room.pk}/take-back/", {}),
    ]
    for who, url, data in refusals:
        response = client_for(who).post(url, data, **HX)
        assert response.status_code == 410, (url, response.status_code)
        html = response.content.decode()
        assert CANCELLED in html and 'role="alert"' in html, url
        assert room_snapshot(room.pk) == before, url
    response = client_for(UserFactory()).get(f"/games/join/{room.invite_token}/")
    assert response.status_code == 410 and CANCELLED in response.content.decode()
    for call in (
        lambda: rooms.room_start(game_id=room.pk, actor=actor(host)),
        lambda: rooms.room_accept_invitation(game_id=room.pk, actor=actor(friend)),
        lambda: rooms.room_join_by_link(token=room.invite_token, actor=actor(UserFactory())),
    ):
        with pytest.raises(GameActionError, match=CANCELLED):
            call()
    assert room_snapshot(room.pk) == before


def test_turn_actions_on_a_cancelled_room_are_refused(room, host):
    rooms.room_add_computer(game_id=room.pk, actor=actor(host), strength="easy")
    rooms.room_cancel(game_id=room.pk, actor=actor(host))
    before = room_snapshot(room.pk)
    with pytest.raises(GameActionError, match=CANCELLED):
        play.turn_roll(game_id=room.pk, actor=actor(host), turn=1, roll=0)
    with pytest.raises(GameActionError, match=CANCELLED):
        play.game_hurry(game_id=room.pk, actor=actor(host))
    assert room_snapshot(room.pk) == before


def test_only_the_host_cancels_and_only_before_the_start(room, host, friend):
    rooms.room_join_by_link(token=room.invite_token, actor=actor(friend))
    assert "Yes, cancel this room" not in client_for(friend).get(f"/games/{room.pk}/").content.decode()
    before = room_snapshot(room.pk)
    response = client_for(friend).post(f"/games/{room.pk}/cancel/", **HX)
    assert response.status_code == 403 and "Only the host can do that." in response.content.decode()
    assert room_snapshot(room.pk) == before
    rooms.room_start(game_id=room.pk, actor=actor(host))
    before = room_snapshot(room.pk)
    with pytest.raises(GameActionError, match="already started"):
        rooms.room_cancel(game_id=room.pk, actor=actor(host))
    assert room_snapshot(room.pk) == before


def test_a_plain_form_cancel_goes_back_to_the_page(room, host):
    response = client_for(host).post(f"/games/{room.pk}/cancel/")
    assert response.status_code == 302 and response["Location"] == f"/games/{room.pk}/"


def test_cancelled_rooms_stay_out_of_my_games(room, host):
    kept = rooms.room_create(actor=actor(host), seats=2, turn_seconds=0)
    rooms.room_cancel(game_id=room.pk, actor=actor(host))
    rows = selectors.history_page(actor=actor(host), page=1).object_list
    assert [r.game.pk for r in rows] == [kept.pk]
    html = client_for(host).get("/games/").content.decode()
    assert f'data-game="{kept.pk}"' in html and f'data-game="{room.pk}"' not in html
