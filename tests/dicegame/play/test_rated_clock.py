"""A rated game always has a clock (issue 22, item 16): a rated live room needs a turn timer, rated games
made with none get one, and a trailing player who keeps the page open and never moves loses on the
clock, which plays on with no browser open. (A stall used to be a way out of a loss: with the timer off
the leader could only leave, and forfeit.)"""

import datetime as dt
import importlib

import pytest
from django.apps import apps as django_apps
from django.test import Client

from dicegame.errors import GameActionError
from dicegame.models import Game, Player, Turn
from dicegame.play import rooms
from dicegame.play.clock import games_settle_overdue
from dicegame.rules.turn import RATED_TURN_SECONDS
from ratings.models import RatingChange
from tests.support import HX
from tests.support.clock import Clock
from tests.support.factories import UserFactory, actor, befriend, client_for
from tests.support.games import open_turn
from tests.support.ratings import play_rated_turn, rated_room

pytestmark = pytest.mark.django_db

START = dt.datetime(2026, 5, 4, 19, 0, tzinfo=dt.UTC)


@pytest.fixture
def clock(monkeypatch):
    return Clock(monkeypatch, START)


def test_a_rated_live_room_needs_a_turn_timer_and_nothing_is_made_without(host):
    with pytest.raises(GameActionError, match="A rated game needs a clock") as refused:
        rooms.room_create(actor=actor(host), seats=2, turn_seconds=0, rated=True)
    assert refused.value.status == 400
    assert not Game.objects.exists()
    # A timer, a correspondence game's move time, or a casual game with none: all made.
    assert rooms.room_create(actor=actor(host), seats=2, turn_seconds=30, rated=True).turn_seconds == 30
    by_post = rooms.room_create(actor=actor(host), seats=2, turn_seconds=0, rated=True, move_seconds=3600)
    assert by_post.is_correspondence and by_post.move_seconds == 3600
    assert rooms.room_create(actor=actor(host), seats=2, turn_seconds=0).turn_seconds is None
    assert Game.objects.count() == 3


def test_the_form_says_so_and_refuses_off_for_a_rated_game_in_both_languages(host):
    client = client_for(host)
    assert "off (not for rated games)" in client.get("/").content.decode()
    answer = client.post("/games/friends/", {"seats": 2, "turn_seconds": 0, "rated": "1"}, **HX)
    assert answer.status_code == 400
    assert (
        "A rated game needs a clock: choose a turn timer of 30, 60 or 120 seconds." in answer.content.decode()
    )
    dutch = client_for(host, language="nl")
    answer = dutch.post("/games/friends/", {"seats": 2, "turn_seconds": 0, "rated": "1"})
    assert answer.status_code == 400 and "Een ratingspel heeft een klok nodig" in answer.content.decode()
    assert not Game.objects.exists()
    assert client.post("/games/friends/", {"seats": 2, "turn_seconds": 120, "rated": "1"}).status_code == 302
    assert Game.objects.get().turn_seconds == 120


def test_rated_games_made_without_a_timer_get_one(host, friend, clock):
    """The data migration: every rated live game not over yet gets RATED_TURN_SECONDS, and a person's
    turn in play its time from now; other games are left as they were."""
    stalled = rated_room(host, [friend])
    room = rooms.room_create(actor=actor(host), seats=2, turn_seconds=60, rated=True)
    casual = rated_room(host, [friend], rated=False)
    over = rated_room(host, [friend])
    Game.objects.filter(pk=over.pk).update(status=Game.Status.FINISHED)
    Game.objects.filter(pk__in=[stalled.pk, room.pk, over.pk]).update(turn_seconds=None)  # made before
    Turn.objects.update(deadline_at=None)
    migration = importlib.import_module("dicegame.migrations.0012_rated_games_have_a_clock")
    migration.give_rated_games_a_clock(django_apps, None)
    timers = dict(Game.objects.values_list("pk", "turn_seconds"))
    assert timers == {
        stalled.pk: RATED_TURN_SECONDS,
        room.pk: RATED_TURN_SECONDS,
        casual.pk: None,
        over.pk: None,
    }
    assert open_turn(stalled).deadline_at == START + dt.timedelta(seconds=RATED_TURN_SECONDS)
    assert open_turn(casual).deadline_at is None and open_turn(over).deadline_at is None


@pytest.mark.parametrize("made_before_the_rule", [False, True])
def test_a_trailing_player_who_never_moves_loses_on_the_clock_with_no_browser_open(
    clock, made_before_the_rule
):
    leader, trailer = UserFactory(username="lea"), UserFactory(username="tim")
    befriend(leader, trailer)
    game = rated_room(leader, [trailer], turn_seconds=30)
    if made_before_the_rule:
        # A rated game made with the timer off, before the rule: its next turns get the rated clock.
        Game.objects.filter(pk=game.pk).update(turn_seconds=None)
    # The trailer plays three turns badly, then keeps the page open and never moves again.
    for _ in range(3):
        play_rated_turn(game, leader)
        play_rated_turn(game, trailer, worst=True)
    Player.objects.filter(game=game, user=trailer).update(connected=True, channel_name="a tab left open")
    step = RATED_TURN_SECONDS if made_before_the_rule else 30
    for _ in range(400):
        game.refresh_from_db()
        if game.is_finished:
            break
        turn = open_turn(game)
        if turn.player.user_id == leader.pk:
            play_rated_turn(game, leader)
            continue
        # Nobody acts: time passes and the clock (as `run_timers` sweeps, no browser needed) plays on.
        assert turn.deadline_at is not None or turn.player.computer_plays
        clock.advance(seconds=step + 1)
        games_settle_overdue()
    assert game.is_finished
    lost = RatingChange.objects.get(game=game, user=trailer)
    won = RatingChange.objects.get(game=game, user=leader)
    assert lost.forfeit and lost.score == 0 and lost.rating_after < lost.rating_before
    assert not won.forfeit and won.score == 1 and won.rating_after > won.rating_before
    trailer_seat = Player.objects.get(game=game, user=trailer)
    assert trailer_seat.stand_in  # the computer kept the seat after two turns missed in a row
    assert Turn.objects.filter(game=game, player=trailer_seat, stand_in=True).count() == 10


def test_without_javascript_the_refusal_is_a_page_with_its_message(host):
    answer = Client()
    answer.force_login(host)
    page = answer.post("/games/friends/", {"seats": 3, "turn_seconds": 0, "rated": "1"})
    assert page.status_code == 400 and "A rated game needs a clock" in page.content.decode()
