"""Games against friends: rooms, seats, invitations, the link, the start, timers, stand-ins, rematch."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from dicegame import play
from dicegame.actors import Actor
from dicegame.errors import GameActionError, GameNotFound
from dicegame.models import Game, Invitation, Turn
from dicegame.play import rooms
from live import presence
from tests.support import HX
from tests.support.factories import UserFactory, actor, befriend, client_for
from tests.support.games import current, mark_finished, snapshot, started_two_player_game

pytestmark = pytest.mark.django_db


def test_create_room(room, host):
    assert room.kind == Game.Kind.FRIENDS and room.is_open
    assert room.seats_wanted == 3 and room.turn_seconds == 60 and len(room.invite_token) >= 32
    assert list(room.players.values_list("user_id", "seat")) == [(host.pk, 0)]
    assert not Turn.objects.filter(game=room).exists()


@pytest.mark.parametrize(("seats", "timer"), [(1, 60), (5, 60), (2, 45), (2, -1)])
def test_bad_room_settings_are_refused(host, seats, timer):
    with pytest.raises(GameActionError) as exc:
        rooms.room_create(actor=actor(host), seats=seats, turn_seconds=timer)
    assert exc.value.status == 400
    assert not Game.objects.exists()


def test_guests_cannot_create_rooms():
    with pytest.raises(GameActionError) as exc:
        rooms.room_create(actor=Actor(guest_key="g"), seats=2, turn_seconds=60)
    assert exc.value.status == 403


def test_invite_a_friend_who_takes_a_seat(room, host, friend):
    invitation = rooms.room_invite(game_id=room.pk, actor=actor(host), username=friend.username)
    assert invitation.status == Invitation.Status.PENDING
    player = rooms.room_accept_invitation(game_id=room.pk, actor=actor(friend))
    assert player.seat == 1 and player.user == friend
    assert Invitation.objects.get(pk=invitation.pk).status == Invitation.Status.ACCEPTED


def test_only_friends_can_be_invited(room, host):
    stranger = UserFactory()
    before = snapshot(room.pk)
    with pytest.raises(GameActionError, match="only invite your friends"):
        rooms.room_invite(game_id=room.pk, actor=actor(host), username=stranger.username)
    with pytest.raises(GameActionError, match="only invite your friends"):
        rooms.room_invite(game_id=room.pk, actor=actor(host), username="nobody-at-all")
    assert snapshot(room.pk) == before


def test_declined_invitation(room, host, friend):
    rooms.room_invite(game_id=room.pk, actor=actor(host), username=friend.username)
    rooms.room_decline_invitation(game_id=room.pk, actor=actor(friend))
    with pytest.raises(GameActionError, match="declined"):
        rooms.room_accept_invitation(game_id=room.pk, actor=actor(friend))
    assert room.players.count() == 1


def test_join_by_link_first_come_first_seated(room):
    first, second, third = UserFactory(), UserFactory(), UserFactory()
    assert rooms.room_join_by_link(token=room.invite_token, actor=actor(first)).seat == 1
    assert rooms.room_join_by_link(token=room.invite_token, actor=actor(first)).seat == 1  # returns
    assert rooms.room_join_by_link(token=room.invite_token, actor=actor(second)).seat == 2
    before = snapshot(room.pk)
    with pytest.raises(GameActionError, match="full"):
        rooms.room_join_by_link(token=room.invite_token, actor=actor(third))
    assert snapshot(room.pk) == before


def test_wrong_link_and_started_game_are_refused(room, host):
    joiner = UserFactory()
    with pytest.raises(GameNotFound, match="not valid"):
        rooms.room_join_by_link(token="not-a-token", actor=actor(joiner))
    rooms.room_add_computer(game_id=room.pk, actor=actor(host), strength="easy")
    rooms.room_start(game_id=room.pk, actor=actor(host))
    with pytest.raises(GameActionError, match="already started"):
        rooms.room_join_by_link(token=room.invite_token, actor=actor(joiner))


def test_join_link_pages(room, host):
    visitor = Client()
    response = visitor.get(f"/games/join/{room.invite_token}/")
    assert response.status_code == 200 and "/accounts/login/?next=" in response.content.decode()
    joiner = UserFactory()
    c = client_for(joiner)
    assert c.get(f"/games/join/{room.invite_token}/").status_code == 200
    response = c.post(f"/games/join/{room.invite_token}/")
    assert response.status_code == 302 and response["Location"] == f"/games/{room.pk}/"
    assert room.players.filter(user=joiner).exists()
    response = c.get("/games/join/wrong-token/")
    assert response.status_code == 404 and "This invitation link is not valid." in response.content.decode()
    full = UserFactory()
    rooms.room_join_by_link(token=room.invite_token, actor=actor(UserFactory()))
    response = client_for(full).post(f"/games/join/{room.invite_token}/")
    assert response.status_code == 409 and "This game is full." in response.content.decode()


def test_host_adds_computers_frees_seats_and_starts(room, host, friend):
    rooms.room_add_computer(game_id=room.pk, actor=actor(host), strength="hard")
    with pytest.raises(GameActionError) as exc:
        rooms.room_add_computer(game_id=room.pk, actor=actor(host), strength="godlike")
    assert exc.value.status == 400
    rooms.room_remove_seat(game_id=room.pk, actor=actor(host), seat=1)
    rooms.room_add_computer(game_id=room.pk, actor=actor(host), strength="easy")
    rooms.room_join_by_link(token=room.invite_token, actor=actor(friend))
    with pytest.raises(GameActionError, match="Only the host"):
        rooms.room_start(game_id=room.pk, actor=actor(friend))
    rooms.room_start(game_id=room.pk, actor=actor(host))
    room.refresh_from_db()
    assert room.is_active
    assert [p.bot_strength for p in room.players.order_by("seat")] == ["", "easy", ""]
    first = current(room.pk)
    assert first.player.user == host and first.deadline_at is not None


def test_start_needs_two_seats(room, host):
    before = snapshot(room.pk)
    with pytest.raises(GameActionError, match="At least two"):
        rooms.room_start(game_id=room.pk, actor=actor(host))
    assert snapshot(room.pk) == before


def test_no_turn_actions_before_the_start(room, host):
    with pytest.raises(GameActionError, match="not started"):
        play.turn_roll(game_id=room.pk, actor=actor(host), turn=1, roll=0)


def test_only_the_seat_whose_turn_it_is_can_act(host, friend):
    game = started_two_player_game(host, friend)
    before = snapshot(game.pk)
    with pytest.raises(GameActionError, match="not your turn"):
        play.turn_roll(game_id=game.pk, actor=actor(friend), turn=1, roll=0)
    spectator = UserFactory()
    befriend(spectator, friend)
    with pytest.raises(GameNotFound):
        play.turn_roll(game_id=game.pk, actor=actor(spectator), turn=1, roll=0)
    assert snapshot(game.pk) == before


def test_friends_of_players_and_link_holders_may_watch(host, friend):
    game = started_two_player_game(host, friend)
    watcher = UserFactory()
    befriend(watcher, friend)
    page = client_for(watcher).get(f"/games/{game.pk}/").content.decode()
    assert "You are watching this game." in page
    stranger = client_for(UserFactory())
    assert stranger.get(f"/games/{game.pk}/").status_code == 404
    assert stranger.get(f"/games/{game.pk}/?t={game.invite_token}").status_code == 200


def test_turn_timer_plays_the_turn_and_two_misses_hand_the_seat_to_the_computer(host, friend):
    game = started_two_player_game(host, friend)
    for expected_missed in (1, 2):
        t = current(game.pk)
        assert t.player.user == host
        Turn.objects.filter(pk=t.pk).update(deadline_at=timezone.now() - timedelta(seconds=1))
        play.game_settle(game_id=game.pk)
        t.refresh_from_db()
        assert t.is_complete and t.stand_in and not t.auto_committed
        seat = game.players.get(user=host)
        assert seat.missed_turns == expected_missed
        assert seat.stand_in == (expected_missed == 2)
        # The friend plays their turn.
        f = current(game.pk)
        play.turn_roll(game_id=game.pk, actor=actor(friend), turn=f.number, roll=0)
        play.turn_choose_box(
            game_id=game.pk, actor=actor(friend), turn=f.number, roll=1, box=f.player.sheet.open_boxes[0].name
        )
        play.turn_confirm(game_id=game.pk, actor=actor(friend), turn=f.number, roll=1)
    # Now the computer keeps the host's seat: their turn is played at the computer's pace.
    t = current(game.pk)
    assert t.player.user == host and t.stand_in and t.next_step_at is not None
    with pytest.raises(GameActionError, match="take it back"):
        play.turn_roll(game_id=game.pk, actor=actor(host), turn=t.number, roll=0)
    rooms.seat_take_back(game_id=game.pk, actor=actor(host))
    t.refresh_from_db()
    assert not t.stand_in and t.next_step_at is None
    play.turn_roll(game_id=game.pk, actor=actor(host), turn=t.number, roll=t.rolls_used)
    seat = game.players.get(user=host)
    assert not seat.stand_in and seat.missed_turns == 0


def test_own_action_resets_the_missed_count(host, friend):
    game = started_two_player_game(host, friend)
    t = current(game.pk)
    Turn.objects.filter(pk=t.pk).update(deadline_at=timezone.now() - timedelta(seconds=1))
    play.game_settle(game_id=game.pk)
    f = current(game.pk)
    play.turn_roll(game_id=game.pk, actor=actor(friend), turn=f.number, roll=0)
    assert game.players.get(user=host).missed_turns == 1
    play.turn_choose_box(game_id=game.pk, actor=actor(friend), turn=f.number, roll=1, box="CHANCE")
    play.turn_confirm(game_id=game.pk, actor=actor(friend), turn=f.number, roll=1)
    t = current(game.pk)
    play.turn_roll(game_id=game.pk, actor=actor(host), turn=t.number, roll=0)
    assert game.players.get(user=host).missed_turns == 0


def screen_opened(game, user, channel_name):
    return presence.game_socket_opened(
        game_id=game.pk,
        actor=actor(user),
        identity=f"user:{user.pk}",
        channel_name=channel_name,
        language="en",
    )


def test_disconnect_on_your_turn_starts_a_grace_period_when_no_timer(host, friend, settings):
    game = started_two_player_game(host, friend, turn_seconds=0)
    t = current(game.pk)
    assert t.deadline_at is not None  # the host had no screen open when the game started
    screen_opened(game, host, "chan-1")
    Turn.objects.filter(pk=t.pk).update(deadline_at=None)
    presence.socket_closed("chan-1")
    t.refresh_from_db()
    grace = (t.deadline_at - timezone.now()).total_seconds()
    assert 0 < grace <= settings.PENTA_ABSENT_GRACE_SECONDS


def test_second_screen_takes_over_the_seat(host, friend):
    game = started_two_player_game(host, friend)
    assert screen_opened(game, host, "tab-1").taken_over == ""
    assert screen_opened(game, host, "tab-2").taken_over == "tab-1"
    seat = game.players.get(user=host)
    assert seat.channel_name == "tab-2" and seat.connected
    presence.socket_closed("tab-1")  # the old tab closing changes nothing
    assert game.players.get(user=host).connected


def test_rematch_when_every_person_accepts_rotates_the_seats(host, friend):
    game = rooms.room_create(actor=actor(host), seats=3, turn_seconds=30)
    rooms.room_join_by_link(token=game.invite_token, actor=actor(friend))
    rooms.room_add_computer(game_id=game.pk, actor=actor(host), strength="medium")
    rooms.room_start(game_id=game.pk, actor=actor(host))
    mark_finished(game)
    assert rooms.rematch_accept(game_id=game.pk, actor=actor(host)) is None
    rematch = rooms.rematch_accept(game_id=game.pk, actor=actor(friend))
    assert rematch.rematch_of == game and rematch.is_active and rematch.turn_seconds == 30
    order = [(p.user_id, p.bot_strength) for p in rematch.players.order_by("seat")]
    assert order == [(friend.pk, ""), (None, "medium"), (host.pk, "")]
    assert current(rematch.pk).player.user == friend
    assert rooms.rematch_accept(game_id=game.pk, actor=actor(host)) == rematch


def test_rematch_offer_lapses_after_30_minutes(host, friend):
    game = started_two_player_game(host, friend)
    mark_finished(game)
    Game.objects.filter(pk=game.pk).update(finished_at=timezone.now() - timedelta(minutes=31))
    with pytest.raises(GameActionError, match="lapsed"):
        rooms.rematch_accept(game_id=game.pk, actor=actor(host))


def test_rematch_is_only_for_finished_friend_games(host, friend):
    game = started_two_player_game(host, friend)
    with pytest.raises(GameActionError):
        rooms.rematch_accept(game_id=game.pk, actor=actor(host))


def test_idle_rooms_expire_and_finished_games_stay(host, friend):
    idle = started_two_player_game(host, friend)
    done = started_two_player_game(host, friend)
    mark_finished(done)
    fresh = rooms.room_create(actor=actor(host), seats=2, turn_seconds=60)
    old = timezone.now() - timedelta(days=8)
    Game.objects.filter(pk__in=[idle.pk, done.pk]).update(updated_at=old)
    assert rooms.games_expire_idle() == 1
    statuses = dict(Game.objects.values_list("pk", "status"))
    assert statuses == {idle.pk: "expired", done.pk: "finished", fresh.pk: "open"}
    with pytest.raises(GameActionError, match="expired"):
        play.turn_roll(game_id=idle.pk, actor=actor(host), turn=1, roll=0)


def test_lobby_page_for_host_invited_friend_and_stranger(room, host, friend):
    html = client_for(host).get(f"/games/{room.pk}/").content.decode()
    assert "Waiting for players" in html and "Start the game" in html and room.invite_token in html
    assert 'ws-connect="/ws/games/' in html
    rooms.room_invite(game_id=room.pk, actor=actor(host), username=friend.username)
    html = client_for(friend).get(f"/games/{room.pk}/").content.decode()
    assert "hana invites you to this game." in html and "Take a seat" in html
    assert room.invite_token not in html
    assert client_for(UserFactory()).get(f"/games/{room.pk}/").status_code == 404


def test_room_views_refuse_bad_input_with_messages(host, room):
    c = client_for(host)
    for url, data, status in [
        ("/games/friends/", {"seats": "9", "turn_seconds": "60"}, 400),
        ("/games/friends/", {"seats": "two"}, 400),
        (f"/games/{room.pk}/computer/", {"strength": "superb"}, 400),
        (f"/games/{room.pk}/invite/", {"username": "nobody"}, 400),
        (f"/games/{room.pk}/start/", {}, 409),
        (f"/games/{room.pk}/seats/7/remove/", {}, 400),
    ]:
        before = snapshot(room.pk)
        response = c.post(url, data, **HX)
        assert response.status_code == status, (url, response.content)
        assert 'role="alert"' in response.content.decode()
        assert snapshot(room.pk) == before
    assert Game.objects.count() == 1


def test_create_room_through_the_home_page(host):
    c = client_for(host)
    assert "Play against friends" in c.get("/").content.decode()
    response = c.post("/games/friends/", {"seats": "4", "turn_seconds": "120"})
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/"
    assert (game.seats_wanted, game.turn_seconds) == (4, 120)


def test_coming_back_clears_the_absence_grace_period(host, friend):
    game = started_two_player_game(host, friend, turn_seconds=0)
    t = current(game.pk)
    assert t.deadline_at is not None  # nobody had the game open when it started
    screen_opened(game, host, "tab")
    t.refresh_from_db()
    assert t.deadline_at is None


def test_coming_back_keeps_a_real_turn_timer(host, friend):
    game = started_two_player_game(host, friend, turn_seconds=60)
    screen_opened(game, host, "tab")
    assert current(game.pk).deadline_at is not None
