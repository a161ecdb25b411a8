"""A person's time to choose a box after the last roll (issue 40, major 2): 3 seconds stay the rule and
the default; a setting gives 6 or 10 s, or none at all in solo games and games against the computer; a
rated game, the daily challenge, a tournament round or a game against friends allows up to 10 s. The
server keeps each seat's own time and its clock writes the roll at it, whatever the page does. And the
computer players' lasting fast pace."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import Profile
from daily import services as daily
from dicegame import play
from dicegame.actors import Actor
from dicegame.errors import GameActionError
from dicegame.models import Game, Player, Turn
from dicegame.play import kernel
from dicegame.play.rooms import room_create
from dicegame.rules.turn import QUESTION_HOLD_SECONDS
from tests.support.factories import UserFactory, actor
from tests.support.games import current, roll, snapshot
from tests.support.ratings import rated_room

pytestmark = pytest.mark.django_db


def countdown_of(t: Turn) -> float:
    """The seconds from the last roll to the auto-commit's time."""
    rolled = timezone.datetime.fromtimestamp(t.roll_times[-1], tz=timezone.UTC)
    return (t.auto_commit_at - rolled).total_seconds()


def test_three_seconds_stay_the_rule_for_anyone_who_chose_nothing(user_actor, guest_actor, settings):
    for who in (user_actor, guest_actor):
        game = play.game_create_solo(actor=who)
        assert game.players.get().auto_commit_seconds is None  # the site's default, whatever it is
        t = roll(game, who, 3)
        assert countdown_of(t) == pytest.approx(settings.PENTA_AUTO_COMMIT_SECONDS, abs=0.01)


def test_an_account_s_ten_seconds_hold_in_its_games_in_play_and_new_ones(user, user_actor):
    before = play.game_create_solo(actor=user_actor)
    play.play_settings_set(actor=user_actor, auto_commit="10", computer_speed="normal")
    assert Profile.objects.get(user=user).auto_commit_seconds == 10
    after = play.game_create_solo(actor=user_actor)
    for game in (before, after):
        t = roll(game, user_actor, 3)
        assert countdown_of(t) == pytest.approx(10, abs=0.01)
    # The server's clock keeps it: not due after 9 s, due after 10.
    t = current(before.pk)
    rolled = t.auto_commit_at - timedelta(seconds=10)
    Turn.objects.filter(pk=t.pk).update(auto_commit_at=rolled + timedelta(seconds=10))
    assert t.auto_commit_at > timezone.now() + timedelta(seconds=9)
    assert play.game_settle(game_id=before.pk) is False


def test_off_means_no_countdown_in_a_solo_game_and_the_turn_waits(user_actor):
    play.play_settings_set(actor=user_actor, auto_commit="off", computer_speed="normal")
    game = play.game_create_solo(actor=user_actor)
    assert game.players.get().auto_commit_seconds == 0
    t = roll(game, user_actor, 3)
    assert t.auto_commit_at is None and play.turn_auto_commit_remaining(t) is None
    assert play.game_settle(game_id=game.pk) is False
    play.turn_choose_box(game_id=game.pk, actor=user_actor, turn=1, roll=3, box="CHANCE")
    play.turn_confirm(game_id=game.pk, actor=user_actor, turn=1, roll=3)
    assert current(game.pk).number == 2


def test_off_becomes_ten_seconds_where_something_is_at_stake_or_others_wait(host, friend):
    play.play_settings_set(actor=actor(host), auto_commit="off", computer_speed="normal")
    play.play_settings_set(actor=actor(friend), auto_commit="6", computer_speed="normal")
    rated = rated_room(host, [friend])
    seats = {p.user_id: p.auto_commit_seconds for p in rated.players.all()}
    assert seats == {host.pk: 10, friend.pk: 6}
    casual = room_create(actor=actor(host), seats=2, turn_seconds=60)
    assert casual.players.get().auto_commit_seconds == 10
    day, _created = daily.attempt_start(actor=actor(host))
    assert Player.objects.get(game_id=day.game_id).auto_commit_seconds == 10
    # In the rated game the server's clock gives the host 10 s after the last roll.
    turn = current(rated.pk)
    mover = host if turn.player.user_id == host.pk else friend
    t = roll(rated, actor(mover), 3)
    assert countdown_of(t) == pytest.approx(10 if mover == host else 6, abs=0.01)
    assert kernel.auto_commit_off_allowed(Game.objects.get(pk=rated.pk)) is False


def test_a_question_holds_the_countdown_from_the_seat_s_own_time(user_actor):
    play.play_settings_set(actor=user_actor, auto_commit="10", computer_speed="normal")
    game = play.game_create_solo(actor=user_actor)
    t = roll(game, user_actor, 3)
    Turn.objects.filter(pk=t.pk).update(dice=[1, 1, 2, 2, 3])  # Penta would score 0
    with pytest.raises(play.ZeroNeedsConfirmation):
        play.turn_choose_box(
            game_id=game.pk, actor=user_actor, turn=1, roll=3, box="PENTA", confirm_zero=False
        )
    held = current(game.pk)
    latest = countdown_of(t) + QUESTION_HOLD_SECONDS
    assert countdown_of(held) <= latest + 0.01
    assert countdown_of(held) > 10  # held past the seat's own 10 s


def test_a_guest_s_settings_come_from_the_session_and_reach_their_games(guest_actor):
    game = play.game_create_solo(actor=guest_actor)
    play.play_settings_set(actor=guest_actor, auto_commit="6", computer_speed="fast")
    assert Player.objects.get(game=game).auto_commit_seconds == 6
    chosen = Actor(guest_key=guest_actor.guest_key, name="Guest", auto_commit=6, fast_computer=True)
    vs = play.game_create_vs_computer(actor=chosen, strengths=["easy"])
    assert vs.fast_computer and vs.players.get(seat=0).auto_commit_seconds == 6
    assert kernel.bot_pace(vs) < kernel.bot_pace(game)


@pytest.mark.parametrize(
    ("auto_commit", "speed"),
    [("5", "normal"), ("", "normal"), ("off", "turbo"), ("10 ", "fast"), ("0", "fast")],
)
def test_a_bad_value_is_refused_and_changes_nothing(user, user_actor, auto_commit, speed):
    game = play.game_create_solo(actor=user_actor)
    before = snapshot(game.pk)
    with pytest.raises(GameActionError) as refused:
        play.play_settings_set(actor=user_actor, auto_commit=auto_commit, computer_speed=speed)
    assert refused.value.status == 400
    assert snapshot(game.pk) == before
    assert not Profile.objects.filter(user=user, auto_commit_seconds__isnull=False).exists()


def test_fast_computers_take_a_fifth_of_the_pace_in_the_person_s_computer_games(settings, user_actor):
    settings.PENTA_BOT_STEP_SECONDS = 1.0
    slow = play.game_create_vs_computer(actor=user_actor, strengths=["easy", "hard"])
    play.play_settings_set(actor=user_actor, auto_commit="3", computer_speed="fast")
    slow.refresh_from_db()
    assert slow.fast_computer  # the game in play follows at once
    assert kernel.bot_pace(slow) == timedelta(seconds=0.2)
    other = UserFactory()
    theirs = play.game_create_vs_computer(actor=actor(other), strengths=["easy"])
    assert not Game.objects.get(pk=theirs.pk).fast_computer
