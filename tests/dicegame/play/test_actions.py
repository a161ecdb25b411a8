"""The turn flow: who may act, when, and what each action writes (or refuses, changing nothing)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from dicegame import play
from dicegame.actors import Actor
from dicegame.errors import GameActionError, GameNotFound
from dicegame.models import Game, Turn
from dicegame.rules import dice
from dicegame.rules.scoring import Box, Scoresheet
from dicegame.strategy import Strategy, computer
from tests.support.factories import UserFactory
from tests.support.games import current, play_whole_game, rigged_turn, roll, snapshot

pytestmark = pytest.mark.django_db


@pytest.fixture
def solo(user_actor):
    return play.game_create_solo(actor=user_actor)


def test_create_solo_game_for_a_guest_commits_to_the_seed(guest_actor):
    game = play.game_create_solo(actor=guest_actor)
    assert game.kind == Game.Kind.SOLO
    assert game.seed_commitment == dice.commitment(game.seed)
    seat = game.players.get()
    assert seat.user is None and seat.guest_key == guest_actor.guest_key
    t = current(game.pk)
    assert (t.number, t.round, t.rolls_used, t.dice) == (1, 1, 0, None)


def test_create_without_identity_is_refused():
    with pytest.raises(GameActionError):
        play.game_create_solo(actor=Actor())


def test_roll_uses_the_games_seed(solo, user_actor):
    t = roll(solo, user_actor)
    assert tuple(t.dice) == dice.roll_dice(solo.seed, solo.pk, 1, 1, None, (False,) * 5)
    assert t.rolls == [{"dice": t.dice, "held": [False] * 5}]
    assert Game.objects.get(pk=solo.pk).version == 1


def test_held_dice_survive_the_reroll_and_are_logged(solo, user_actor):
    t = roll(solo, user_actor)
    first = list(t.dice)
    play.turn_toggle_hold(game_id=solo.pk, actor=user_actor, turn=1, roll=1, die=2)
    play.turn_toggle_hold(game_id=solo.pk, actor=user_actor, turn=1, roll=1, die=4)
    t = roll(solo, user_actor)
    assert t.dice[1] == first[1] and t.dice[3] == first[3]
    assert t.rolls[1]["held"] == [False, True, False, True, False]
    assert tuple(t.dice) == dice.roll_dice(
        solo.seed, solo.pk, 1, 2, tuple(first), (False, True, False, True, False)
    )


def test_hold_toggles_back(solo, user_actor):
    roll(solo, user_actor)
    play.turn_toggle_hold(game_id=solo.pk, actor=user_actor, turn=1, roll=1, die=3)
    play.turn_toggle_hold(game_id=solo.pk, actor=user_actor, turn=1, roll=1, die=3)
    assert current(solo.pk).held == [False] * 5


@pytest.mark.parametrize(
    ("setup", "attempt", "message"),
    [
        (
            lambda g, a: roll(g, a, 3),
            lambda g, a: play.turn_roll(game_id=g.pk, actor=a, turn=1, roll=3),
            "three times",
        ),
        (
            lambda g, a: None,
            lambda g, a: play.turn_toggle_hold(game_id=g.pk, actor=a, turn=1, roll=0, die=1),
            "Roll first",
        ),
        (
            lambda g, a: None,
            lambda g, a: play.turn_confirm(game_id=g.pk, actor=a, turn=1, roll=0),
            "Roll first",
        ),
        (
            lambda g, a: None,
            lambda g, a: play.turn_choose_box(game_id=g.pk, actor=a, turn=1, roll=0, box="CHANCE"),
            "Roll first",
        ),
        (
            lambda g, a: roll(g, a),
            lambda g, a: play.turn_confirm(game_id=g.pk, actor=a, turn=1, roll=1),
            "Choose a box",
        ),
        (
            lambda g, a: roll(g, a),
            lambda g, a: play.turn_roll(game_id=g.pk, actor=a, turn=1, roll=0),
            "moved on",
        ),
        (
            lambda g, a: roll(g, a),
            lambda g, a: play.turn_roll(game_id=g.pk, actor=a, turn=2, roll=1),
            "moved on",
        ),
        (
            lambda g, a: roll(g, a, 3),
            lambda g, a: play.turn_toggle_hold(game_id=g.pk, actor=a, turn=1, roll=3, die=1),
            "No rolls",
        ),
    ],
    ids=[
        "fourth-roll",
        "hold-before-roll",
        "confirm-before-roll",
        "choose-before-roll",
        "confirm-without-box",
        "stale-roll",
        "stale-turn",
        "hold-after-last-roll",
    ],
)
def test_refused_actions_change_nothing(solo, user_actor, setup, attempt, message):
    setup(solo, user_actor)
    before = snapshot(solo.pk)
    with pytest.raises(GameActionError, match=message) as exc:
        attempt(solo, user_actor)
    assert exc.value.status == 409
    assert snapshot(solo.pk) == before


def test_rolling_with_all_five_held_is_refused(solo, user_actor):
    roll(solo, user_actor)
    for die in range(1, 6):
        play.turn_toggle_hold(game_id=solo.pk, actor=user_actor, turn=1, roll=1, die=die)
    before = snapshot(solo.pk)
    with pytest.raises(GameActionError, match="All five dice are held"):
        play.turn_roll(game_id=solo.pk, actor=user_actor, turn=1, roll=1)
    assert snapshot(solo.pk) == before


def test_filled_box_is_refused(user, user_actor):
    game = rigged_turn(user, [1, 2, 3, 4, 6], boxes={Box.CHANCE: 17})
    before = snapshot(game.pk)
    with pytest.raises(GameActionError, match="Chance is already filled"):
        play.turn_choose_box(game_id=game.pk, actor=user_actor, turn=2, roll=1, box="CHANCE")
    assert snapshot(game.pk) == before


def test_box_forbidden_by_the_forced_joker_is_refused(user, user_actor):
    game = rigged_turn(user, [4] * 5, boxes={Box.PENTA: 50})
    before = snapshot(game.pk)
    with pytest.raises(GameActionError, match="forced joker") as exc:
        play.turn_choose_box(game_id=game.pk, actor=user_actor, turn=2, roll=1, box="FULL_HOUSE")
    assert "Fours" in exc.value.message
    assert snapshot(game.pk) == before


def test_penta_bonus_is_written_with_the_joker(user, user_actor):
    game = rigged_turn(user, [4] * 5, boxes={Box.PENTA: 50})
    play.turn_choose_box(game_id=game.pk, actor=user_actor, turn=2, roll=1, box="FOURS")
    play.turn_confirm(game_id=game.pk, actor=user_actor, turn=2, roll=1)
    done = Turn.objects.get(game=game, number=2)
    assert (done.box, done.points, done.bonus, done.auto_committed) == ("FOURS", 20, 100, False)
    player = game.players.get()
    assert (player.penta_bonus, player.total) == (100, 170)


@pytest.mark.parametrize(("box", "status"), [("SEVENS", 400), ("", 400)])
def test_unknown_box_is_a_bad_request(solo, user_actor, box, status):
    roll(solo, user_actor)
    with pytest.raises(GameActionError) as exc:
        play.turn_choose_box(game_id=solo.pk, actor=user_actor, turn=1, roll=1, box=box)
    assert exc.value.status == status


@pytest.mark.parametrize("die", [0, 6, -1])
def test_die_out_of_range_is_a_bad_request(solo, user_actor, die):
    roll(solo, user_actor)
    with pytest.raises(GameActionError) as exc:
        play.turn_toggle_hold(game_id=solo.pk, actor=user_actor, turn=1, roll=1, die=die)
    assert exc.value.status == 400


def test_someone_elses_game_does_not_exist_for_you(solo):
    stranger = Actor(user_id=UserFactory().pk)
    before = snapshot(solo.pk)
    for attempt in (
        lambda: play.turn_roll(game_id=solo.pk, actor=stranger, turn=1, roll=0),
        lambda: play.turn_toggle_hold(game_id=solo.pk, actor=stranger, turn=1, roll=0, die=1),
        lambda: play.turn_choose_box(game_id=solo.pk, actor=stranger, turn=1, roll=0, box="ONES"),
        lambda: play.turn_confirm(game_id=solo.pk, actor=stranger, turn=1, roll=0),
    ):
        with pytest.raises(GameNotFound):
            attempt()
    assert snapshot(solo.pk) == before


def test_a_guest_cannot_act_in_another_guests_game(guest_actor):
    game = play.game_create_solo(actor=guest_actor)
    with pytest.raises(GameNotFound):
        play.turn_roll(game_id=game.pk, actor=Actor(guest_key="someone-else"), turn=1, roll=0)


def test_unknown_game(user_actor):
    with pytest.raises(GameNotFound):
        play.turn_roll(game_id=999999, actor=user_actor, turn=1, roll=0)


def test_a_whole_game_finishes_with_the_sheets_total(solo, user_actor):
    play_whole_game(solo, user_actor)
    solo.refresh_from_db()
    assert solo.is_finished and solo.finished_at is not None
    player = solo.players.get()
    sheet = player.sheet
    assert sheet.is_complete
    assert player.total == sheet.total
    assert player.rank == 1
    turns = list(solo.turns.order_by("number"))
    assert [t.number for t in turns] == list(range(1, 14))
    assert sum(t.points + t.bonus for t in turns) + sheet.upper_bonus == sheet.total
    for t in turns:
        assert dice.check_turn(solo.seed, solo.pk, t.number, t.rolls) == []


def test_any_action_on_a_finished_game_is_refused(solo, user_actor):
    play_whole_game(solo, user_actor)
    before = snapshot(solo.pk)
    with pytest.raises(GameActionError, match="over"):
        play.turn_roll(game_id=solo.pk, actor=user_actor, turn=14, roll=0)
    assert snapshot(solo.pk) == before


def test_third_roll_starts_the_countdown_and_choosing_stops_it(solo, user_actor, settings):
    t = roll(solo, user_actor, 2)
    assert t.auto_commit_at is None
    t = roll(solo, user_actor)
    remaining = play.turn_auto_commit_remaining(t)
    assert 0 < remaining <= settings.PENTA_AUTO_COMMIT_SECONDS
    play.turn_choose_box(game_id=solo.pk, actor=user_actor, turn=1, roll=3, box="CHANCE")
    assert current(solo.pk).auto_commit_at is None


def test_overdue_auto_commit_is_applied_once_by_the_server(solo, user_actor):
    t = roll(solo, user_actor, 3)
    assert play.game_settle(game_id=solo.pk) is False  # not due yet
    Turn.objects.filter(pk=t.pk).update(auto_commit_at=timezone.now() - timedelta(seconds=1))
    assert play.game_settle(game_id=solo.pk) is True
    assert play.game_settle(game_id=solo.pk) is False
    done = Turn.objects.get(pk=t.pk)
    expected = computer.auto_commit_box(Scoresheet(), tuple(t.dice))
    assert done.auto_committed and done.box == expected.name
    assert current(solo.pk).number == 2


def test_an_action_after_the_deadline_finds_the_turn_already_written(solo, user_actor):
    t = roll(solo, user_actor, 3)
    Turn.objects.filter(pk=t.pk).update(auto_commit_at=timezone.now() - timedelta(seconds=1))
    with pytest.raises(GameActionError, match="moved on"):
        play.turn_choose_box(game_id=solo.pk, actor=user_actor, turn=1, roll=3, box="CHANCE")
    # The auto-commit stands even though the late action was refused.
    assert Turn.objects.get(pk=t.pk).auto_committed


def test_sweep_settles_every_overdue_game(user_actor, guest_actor):
    games = [play.game_create_solo(actor=a) for a in (user_actor, guest_actor)]
    for game, actor in zip(games, (user_actor, guest_actor), strict=True):
        roll(game, actor, 3)
    Turn.objects.update(auto_commit_at=timezone.now() - timedelta(seconds=1))
    assert play.games_settle_overdue() == 2
    assert Turn.objects.filter(auto_committed=True).count() == 2


def test_auto_commit_writes_the_optimal_strategys_box():
    for sheet, rolled in [
        (Scoresheet(), (1, 2, 3, 4, 5)),
        (Scoresheet({Box.CHANCE: 9}), (1, 1, 2, 2, 3)),
        (Scoresheet({b: 0 for b in Box if b not in (Box.ONES, Box.TWOS)}), (3, 3, 4, 5, 6)),
        (Scoresheet({Box.PENTA: 50}), (6, 6, 6, 6, 6)),
    ]:
        box = computer.auto_commit_box(sheet, rolled)
        best = max(Strategy.shared().evaluate(sheet, rolled, 0), key=lambda c: c.expected_total)
        assert box == best.box
        assert box in sheet.options(rolled)
    assert computer.auto_commit_box(Scoresheet(), (1, 2, 3, 4, 5)) == Box.LARGE_STRAIGHT
