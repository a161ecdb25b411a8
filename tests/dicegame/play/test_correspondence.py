"""Correspondence games: each person moves on their own time (an hour to three days a move), the clock
plays a move not made in time, three missed in a row forfeit the seat, a game nobody moves in for 14
days ends as it stands, and a person plays at most 50 at once. Days pass on a simulated clock."""

import datetime as dt
from datetime import timedelta

import pytest
from django.db.models import Q

from dicegame import play
from dicegame.errors import GameActionError
from dicegame.models import Game, Turn
from dicegame.play import limits, rooms
from dicegame.rules.scoring import Box
from dicegame.rules.turn import (
    CORRESPONDENCE_GAMES_MAX,
    IDLE_END_SECONDS,
    MISSED_MOVES_FORFEIT,
    MOVE_TIME_CHOICES,
)
from live import presence
from tests.support import HX
from tests.support.clock import Clock
from tests.support.factories import UserFactory, actor, client_for
from tests.support.games import (
    current,
    mark_finished,
    play_turn,
    race,
    roll,
    snapshot,
    started_two_player_game,
)

DAY = 24 * 3600
START = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)


@pytest.fixture
def clock(monkeypatch):
    return Clock(monkeypatch, START)


def correspondence_game(host, friend, move_seconds=DAY) -> Game:
    return started_two_player_game(host, friend, turn_seconds=0, move_seconds=move_seconds)


@pytest.mark.django_db
class TestRooms:
    def test_a_room_by_correspondence_has_its_move_time_and_no_turn_timer(self, host):
        game = rooms.room_create(actor=actor(host), seats=2, turn_seconds=60, move_seconds=8 * 3600)
        assert game.is_correspondence and game.pace == Game.Pace.CORRESPONDENCE
        assert (game.move_seconds, game.turn_seconds) == (8 * 3600, None)
        assert game.pace_label == "Correspondence, 8 hours a move"

    @pytest.mark.parametrize("move_seconds", [1, 60, 2 * DAY, 7 * DAY, -3600])
    def test_a_move_time_not_offered_is_refused_and_nothing_is_made(self, host, move_seconds):
        with pytest.raises(GameActionError, match="an hour, 8 hours, a day or 3 days") as exc:
            rooms.room_create(actor=actor(host), seats=2, turn_seconds=0, move_seconds=move_seconds)
        assert exc.value.status == 400
        assert not Game.objects.exists()

    def test_the_home_page_form_makes_one(self, host):
        c = client_for(host)
        assert 'name="move_seconds"' in c.get("/").content.decode()
        response = c.post("/games/friends/", {"seats": "2", "turn_seconds": "0", "move_seconds": str(DAY)})
        game = Game.objects.get()
        assert response.status_code == 302 and game.move_seconds == DAY

    def test_the_form_refuses_a_bad_move_time_with_a_message(self, host):
        response = client_for(host).post(
            "/games/friends/", {"seats": "2", "turn_seconds": "0", "move_seconds": "5"}, **HX
        )
        assert response.status_code == 400
        assert "an hour, 8 hours, a day or 3 days" in response.content.decode()
        assert not Game.objects.exists()

    def test_the_lobby_shows_the_pace(self, host, friend):
        game = rooms.room_create(actor=actor(host), seats=2, turn_seconds=0, move_seconds=3 * DAY)
        page = client_for(host).get(f"/games/{game.pk}/").content.decode()
        assert "Correspondence, 3 days a move" in page

    def test_every_offered_move_time_is_between_an_hour_and_three_days(self):
        assert sorted(MOVE_TIME_CHOICES) == [3600, 8 * 3600, DAY, 3 * DAY]


@pytest.mark.django_db
class TestMoveTime:
    def test_each_turn_has_the_move_time_from_its_start(self, clock, host, friend):
        game = correspondence_game(host, friend)
        assert current(game.pk).deadline_at == START + timedelta(seconds=DAY)
        assert game.moved_at == START
        clock.advance(hours=5)
        play_turn(game, host)
        turn = current(game.pk)
        assert turn.player.user == friend and turn.deadline_at == clock.now + timedelta(seconds=DAY)
        game.refresh_from_db()
        assert game.moved_at == clock.now

    def test_nothing_happens_before_the_move_time_is_up(self, clock, host, friend):
        game = correspondence_game(host, friend)
        clock.advance(hours=23, minutes=59)
        before = snapshot(game.pk)
        assert play.games_settle_overdue() == 0
        assert snapshot(game.pk) == before

    def test_a_move_not_made_in_time_is_played_by_the_computer_and_the_next_comes_back(
        self, clock, host, friend
    ):
        game = correspondence_game(host, friend)
        clock.advance(days=1, seconds=1)
        assert play.games_settle_overdue() == 1  # no browser open: the clock's sweep does it
        played = Turn.objects.get(game=game, number=1)
        assert played.is_complete and played.stand_in
        seat = game.players.get(user=host)
        assert seat.missed_turns == 1 and not seat.stand_in and seat.left_at is None
        # The friend moves; the host's next move is the host's again, with a full move time.
        play_turn(game, friend)
        turn = current(game.pk)
        assert turn.player.user == host and not turn.stand_in
        assert turn.deadline_at == clock.now + timedelta(seconds=DAY)

    def test_three_missed_in_a_row_forfeit_the_seat(self, clock, host, friend):
        game = correspondence_game(host, friend, move_seconds=3600)
        for missed, box in zip(range(1, MISSED_MOVES_FORFEIT + 1), Box, strict=False):
            clock.advance(hours=1, seconds=1)
            play.games_settle_overdue()  # the host's move played for them
            assert game.players.get(user=host).missed_turns == missed
            play_turn(game, friend, box)
        seat = game.players.get(user=host)
        assert seat.left_at is not None and seat.stand_in
        # The computer plays on for the seat, at its own pace; the friend's game goes on.
        assert current(game.pk).player.computer_plays
        clock.advance(minutes=1)
        play.games_settle_overdue()
        assert current(game.pk).player.user == friend and Game.objects.get(pk=game.pk).is_active
        with pytest.raises(GameActionError):
            roll(game, actor(host))

    def test_a_move_made_in_between_starts_the_count_again(self, clock, host, friend):
        game = correspondence_game(host, friend, move_seconds=3600)
        for box in list(Box)[: MISSED_MOVES_FORFEIT - 1]:
            clock.advance(hours=1, seconds=1)
            play.games_settle_overdue()
            play_turn(game, friend, box)
        play_turn(game, host)
        assert game.players.get(user=host).missed_turns == 0
        play_turn(game, friend, Box.FIVES)
        clock.advance(hours=1, seconds=1)
        play.games_settle_overdue()
        seat = game.players.get(user=host)
        assert seat.missed_turns == 1 and seat.left_at is None

    def test_a_screen_opened_or_closed_leaves_the_move_time_as_it_is(self, clock, host, friend):
        game = correspondence_game(host, friend)
        deadline = current(game.pk).deadline_at
        presence.game_socket_opened(
            game_id=game.pk, actor=actor(host), identity=f"user:{host.pk}", channel_name="tab", language="en"
        )
        assert current(game.pk).deadline_at == deadline
        clock.advance(minutes=10)
        presence.socket_closed("tab")
        assert current(game.pk).deadline_at == deadline


@pytest.mark.django_db
class TestIdleEnd:
    def test_a_game_nobody_moves_in_for_14_days_ends_as_it_stands(self, clock, host, friend):
        game = correspondence_game(host, friend, move_seconds=3 * DAY)
        closes_at = START + timedelta(seconds=IDLE_END_SECONDS)
        assert game.closes_at == closes_at
        clock.advance(days=20)  # the clock was down: it catches up in order, then ends the game
        assert play.games_settle_overdue() == 1
        game.refresh_from_db()
        assert game.is_finished and game.finished_at == closes_at
        # The moves that fell due before the end were played (days 3, 6, 9, 12), none after it.
        assert Turn.objects.filter(game=game, completed_at__isnull=False, stand_in=True).count() == 4
        assert not Turn.objects.filter(Q(completed_at__gt=closes_at), game=game).exists()
        assert set(game.players.values_list("left_at", flat=True)) == {closes_at}

    def test_a_move_pushes_the_end_back(self, clock, host, friend):
        game = correspondence_game(host, friend, move_seconds=3 * DAY)
        clock.advance(days=2)
        play_turn(game, host)
        game.refresh_from_db()
        assert game.closes_at == clock.now + timedelta(seconds=IDLE_END_SECONDS)

    def test_the_week_long_expiry_of_rooms_leaves_a_game_in_play(self, clock, host, friend):
        game = correspondence_game(host, friend, move_seconds=3 * DAY)
        room = rooms.room_create(actor=actor(host), seats=2, turn_seconds=0, move_seconds=3 * DAY)
        live = started_two_player_game(host, friend)
        clock.advance(days=8)
        rooms.games_expire_idle()
        statuses = dict(Game.objects.values_list("pk", "status"))
        assert statuses[game.pk] == Game.Status.ACTIVE
        assert statuses[room.pk] == Game.Status.EXPIRED and statuses[live.pk] == Game.Status.EXPIRED


@pytest.mark.django_db
class TestRematch:
    def test_a_rematch_keeps_the_pace(self, clock, host, friend):
        game = correspondence_game(host, friend, move_seconds=8 * 3600)
        mark_finished(game)
        rooms.rematch_accept(game_id=game.pk, actor=actor(host))
        rematch = rooms.rematch_accept(game_id=game.pk, actor=actor(friend))
        assert rematch.is_correspondence and rematch.move_seconds == 8 * 3600
        assert rematch.moved_at == clock.now
        assert current(rematch.pk).deadline_at == clock.now + timedelta(hours=8)


def fill_up(user, n=CORRESPONDENCE_GAMES_MAX) -> None:
    for _ in range(n):
        rooms.room_create(actor=actor(user), seats=2, turn_seconds=0, move_seconds=DAY)


@pytest.mark.django_db
class TestAtMost50:
    def test_the_51st_is_refused_and_nothing_is_made(self, host):
        fill_up(host)
        with pytest.raises(GameActionError, match="already play 50 correspondence games") as exc:
            rooms.room_create(actor=actor(host), seats=2, turn_seconds=0, move_seconds=DAY)
        assert exc.value.status == 409
        assert Game.objects.count() == CORRESPONDENCE_GAMES_MAX

    def test_live_games_and_finished_ones_do_not_count(self, host, friend):
        fill_up(host, CORRESPONDENCE_GAMES_MAX - 1)
        rooms.room_create(actor=actor(host), seats=2, turn_seconds=60)
        finished = correspondence_game(host, friend)
        mark_finished(finished)
        rooms.room_create(actor=actor(host), seats=2, turn_seconds=0, move_seconds=DAY)  # the 50th

    def test_a_seat_taken_by_the_link_is_refused_to_a_person_with_50(self, host, friend):
        room = rooms.room_create(actor=actor(host), seats=2, turn_seconds=0, move_seconds=DAY)
        fill_up(friend)
        before = snapshot(room.pk)
        with pytest.raises(GameActionError, match="correspondence games") as exc:
            rooms.room_join_by_link(token=room.invite_token, actor=actor(friend))
        assert exc.value.status == 409
        assert snapshot(room.pk) == before

    def test_an_invitation_accepted_by_a_person_with_50_is_refused(self, host, friend):
        room = rooms.room_create(actor=actor(host), seats=2, turn_seconds=0, move_seconds=DAY)
        rooms.room_invite(game_id=room.pk, actor=actor(host), username=friend.username)
        fill_up(friend)
        with pytest.raises(GameActionError, match="correspondence games"):
            rooms.room_accept_invitation(game_id=room.pk, actor=actor(friend))
        assert room.players.count() == 1

    def test_a_rematch_that_would_make_a_51st_is_refused(self, host, friend):
        game = correspondence_game(host, friend)
        mark_finished(game)
        fill_up(friend)
        rooms.rematch_accept(game_id=game.pk, actor=actor(host))
        with pytest.raises(GameActionError, match=f"{friend.username} already plays 50"):
            rooms.rematch_accept(game_id=game.pk, actor=actor(friend))
        assert not Game.objects.filter(rematch_of=game).exists()


@pytest.mark.django_db(transaction=True)
def test_two_rooms_made_at_once_for_the_last_place_make_one():
    user = UserFactory()
    fill_up(user, CORRESPONDENCE_GAMES_MAX - 1)
    results = race(2, lambda: rooms.room_create(actor=actor(user), seats=2, turn_seconds=0, move_seconds=DAY))
    refused = [r for r in results if isinstance(r, GameActionError)]
    assert len(refused) == 1 and refused[0].status == 409, results
    assert limits.correspondence_games_of(user.pk) == CORRESPONDENCE_GAMES_MAX
