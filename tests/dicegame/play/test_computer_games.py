"""Games against the computer: seats, paced computer moves, speeding them up, ranking, and hints."""

import re
from datetime import timedelta

import pytest
from django.db import IntegrityError
from django.utils import timezone

from dicegame import play
from dicegame.actors import Actor
from dicegame.errors import GameActionError, GameNotFound
from dicegame.labels import keep_label as _keep_label
from dicegame.models import Game, Player, Turn
from dicegame.play.finish import finish
from dicegame.rules.scoring import Box, Scoresheet
from dicegame.screen.hints import game_hints
from dicegame.screen.view import game_board
from dicegame.strategy import Bot, Strategy, computer
from tests.support import HX
from tests.support.factories import GameFactory, PlayerFactory, actor
from tests.support.games import current, roll, snapshot, two_player_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def vs_two(user_actor):
    return play.game_create_vs_computer(actor=user_actor, strengths=["easy", "hard"])


def human_plays_turn(game, actor):
    t = roll(game, actor)
    box = computer.auto_commit_box(t.player.sheet, tuple(t.dice))
    t = current(game.pk)
    play.turn_choose_box(game_id=game.pk, actor=actor, turn=t.number, roll=t.rolls_used, box=box.name)
    play.turn_confirm(game_id=game.pk, actor=actor, turn=t.number, roll=t.rolls_used)


def test_create_game_against_computer_seats_the_person_first(vs_two, user):
    seats = list(vs_two.players.order_by("seat"))
    assert vs_two.kind == Game.Kind.COMPUTER
    assert [(p.seat, p.user_id, p.bot_strength) for p in seats] == [
        (0, user.pk, ""),
        (1, None, "easy"),
        (2, None, "hard"),
    ]
    assert seats[1].name == "Computer 1 (easy)" and seats[2].name == "Computer 2 (hard)"
    assert current(vs_two.pk).player == seats[0]


@pytest.mark.parametrize(
    ("strengths", "message"),
    [
        ([], "1 to 3"),
        (["easy"] * 4, "1 to 3"),
        (["nightmare"], "Unknown strength 'nightmare'"),
        (["hard", ""], "Unknown"),
    ],
)
def test_bad_computer_game_requests_are_refused(user_actor, strengths, message):
    with pytest.raises(GameActionError, match=message) as exc:
        play.game_create_vs_computer(actor=user_actor, strengths=strengths)
    assert exc.value.status == 400
    assert not Game.objects.exists()


def test_home_form_starts_a_computer_game_and_refuses_bad_input(client):
    response = client.post("/games/computer/", {"strength": ["hard", "medium", ""]})
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/"
    assert [p.bot_strength for p in game.players.order_by("seat")] == ["", "hard", "medium"]
    for bad in ({"strength": ["godlike"]}, {"strength": ["", "", ""]}, {"strength": ["easy"] * 4}):
        response = client.post("/games/computer/", bad)
        assert response.status_code == 400
        assert 'role="alert"' in response.content.decode()
    assert Game.objects.count() == 1


def test_computer_moves_wait_for_their_pace_then_play_to_the_persons_turn(vs_two, user_actor, settings):
    human_plays_turn(vs_two, user_actor)
    bot_turn = current(vs_two.pk)
    assert bot_turn.player.bot_strength == "easy" and bot_turn.next_step_at > timezone.now()
    assert play.game_settle(game_id=vs_two.pk) is False  # not due yet
    # Nobody watched for a minute: the computer catches up at once, then waits for the person.
    Turn.objects.filter(pk=bot_turn.pk).update(next_step_at=timezone.now() - timedelta(minutes=1))
    assert play.game_settle(game_id=vs_two.pk) is True
    t = current(vs_two.pk)
    assert t.player.seat == 0 and t.round == 2
    for done in Turn.objects.filter(game=vs_two, player__seat__gt=0):
        assert done.is_complete and 1 <= done.rolls_used <= 3
        assert not done.auto_committed


def test_one_step_at_a_time_when_on_pace(vs_two, user_actor):
    human_plays_turn(vs_two, user_actor)
    bot_turn = current(vs_two.pk)
    Turn.objects.filter(pk=bot_turn.pk).update(next_step_at=timezone.now())
    play.game_settle(game_id=vs_two.pk)
    bot_turn.refresh_from_db()
    assert bot_turn.rolls_used == 1 and not bot_turn.is_complete
    assert bot_turn.next_step_at > timezone.now()


def test_speed_up_plays_the_computer_now_and_is_refused_on_the_persons_turn(vs_two, user_actor):
    before = snapshot(vs_two.pk)
    with pytest.raises(GameActionError, match="your turn"):
        play.game_hurry(game_id=vs_two.pk, actor=user_actor)
    assert snapshot(vs_two.pk) == before
    human_plays_turn(vs_two, user_actor)
    play.game_hurry(game_id=vs_two.pk, actor=user_actor)
    assert current(vs_two.pk).player.seat == 0


def test_speed_up_on_another_persons_turn_names_them(db):
    game, host, friend = two_player_game()
    before = snapshot(game.pk)
    with pytest.raises(GameActionError, match="It is hana's turn: only the computer's moves can be sped up"):
        play.game_hurry(game_id=game.pk, actor=actor(friend))
    assert snapshot(game.pk) == before


def test_speed_up_is_not_for_strangers(vs_two):
    with pytest.raises(GameNotFound):
        play.game_hurry(game_id=vs_two.pk, actor=Actor(guest_key="stranger"))


def test_a_whole_game_against_three_bots_ranks_every_seat(user_actor):
    game = play.game_create_vs_computer(actor=user_actor, strengths=["easy", "medium", "hard"])
    for _ in range(13):
        human_plays_turn(game, user_actor)
        if not Game.objects.get(pk=game.pk).is_finished:
            play.game_hurry(game_id=game.pk, actor=user_actor)
    game.refresh_from_db()
    assert game.is_finished
    players = list(game.players.order_by("seat"))
    for p in players:
        assert p.sheet.is_complete and p.total == p.sheet.total
        assert p.rank == 1 + sum(o.total > p.total for o in players)
    assert Turn.objects.filter(game=game).count() == 52


def test_equal_totals_share_a_place():
    game = GameFactory(kind=Game.Kind.COMPUTER)
    totals = [200, 250, 200, 250]
    players = [
        PlayerFactory(game=game, seat=i, user=None, bot_strength="easy", name=f"b{i}", total=t)
        for i, t in enumerate(totals)
    ]
    finish(game, players)
    assert [p.rank for p in players] == [3, 1, 3, 1]


def test_human_auto_commit_in_a_computer_game(vs_two, user_actor):
    t = roll(vs_two, user_actor, 3)
    Turn.objects.filter(pk=t.pk).update(auto_commit_at=timezone.now() - timedelta(seconds=1))
    play.game_settle(game_id=vs_two.pk)
    assert Turn.objects.get(pk=t.pk).auto_committed
    assert current(vs_two.pk).player.seat in (0, 1)


def test_the_bot_page_shows_who_plays_and_polls_for_the_next_move(user_client, vs_two, user_actor):
    human_plays_turn(vs_two, user_actor)
    html = user_client.get(f"/games/{vs_two.pk}/").content.decode()
    assert "Computer 1 (easy) is playing" in html
    assert re.search(r'hx-post="/games/\d+/tick/\?turn=\d+" hx-trigger="load delay:\d+ms"', html)
    assert "Speed up" in html
    response = user_client.post(f"/games/{vs_two.pk}/hurry/", {}, **HX)
    assert response.status_code == 200
    assert current(vs_two.pk).player.seat == 0


# -- the computer's moves, one at a time ---------------------------------------------------------------


def test_holds_for_picks_the_kept_values():
    assert computer.holds_for((3, 5, 3, 1, 3), (3, 3)) == [True, False, True, False, False]
    assert computer.holds_for((1, 2, 3, 4, 5), ()) == [False] * 5
    with pytest.raises(ValueError):
        computer.holds_for((1, 2, 3, 4, 5), (6,))


def test_next_step_sequence():
    bot = Bot("hard")
    sheet = Scoresheet()
    assert computer.next_step(bot, sheet, None, [False] * 5, 0, None).kind == "roll"
    step = computer.next_step(bot, sheet, (6, 6, 6, 2, 1), [False] * 5, 1, None)
    assert step.kind == "hold" and step.held == (True, True, True, False, False)
    assert computer.next_step(bot, sheet, (6, 6, 6, 2, 1), list(step.held), 1, None).kind == "roll"
    final = computer.next_step(bot, sheet, (6, 6, 6, 2, 1), [True, True, True, False, False], 3, None)
    assert final.kind == "choose" and final.box in sheet.options((6, 6, 6, 2, 1))
    assert computer.next_step(bot, sheet, (6, 6, 6, 2, 1), [False] * 5, 3, final.box).kind == "confirm"
    # A roll worth keeping whole is written at once.
    assert computer.next_step(bot, sheet, (2, 3, 4, 5, 6), [False] * 5, 1, None).kind == "choose"


# -- hints ---------------------------------------------------------------------------------------------


def test_hints_show_the_optimal_holds_and_boxes_and_mark_the_game(user_client, user_actor):
    game = play.game_create_solo(actor=user_actor)
    response = user_client.post(f"/games/{game.pk}/hints/", {"on": "1"}, **HX)
    assert response.status_code == 200
    game.refresh_from_db()
    assert game.hints_used and game.players.get().hints
    t = roll(game, user_actor)
    html = user_client.get(f"/games/{game.pk}/").content.decode()
    assert 'data-hint="keeps"' in html and 'data-hint="boxes"' in html
    hints = game_hints(sheet=Scoresheet(), dice_values=tuple(t.dice), rolls_used=1)
    best_keep = Strategy.shared().best_keep(Scoresheet(), tuple(t.dice), 2)
    assert hints.keeps[0].cost == 0
    assert hints.keeps[0].label == _keep_label(best_keep)
    assert [line.expected_total for line in hints.boxes] == sorted(
        (line.expected_total for line in hints.boxes), reverse=True
    )
    assert len(hints.boxes) == 13
    assert all(line.cost >= 0 for line in hints.keeps + hints.boxes)
    # History marks the game.
    assert "hints used" in user_client.get("/games/").content.decode()


def test_hints_cost_is_against_the_best_choice():
    sheet = Scoresheet({Box.CHANCE: 20})
    hints = game_hints(sheet=sheet, dice_values=(1, 2, 3, 4, 5), rolls_used=3)
    assert hints.keeps == []
    evaluated = Strategy.shared().evaluate(sheet, (1, 2, 3, 4, 5), 0)
    assert hints.expected_total == pytest.approx(evaluated[0].expected_total)
    for line, choice in zip(hints.boxes, evaluated, strict=True):
        assert line.cost == pytest.approx(evaluated[0].expected_total - choice.expected_total)


def test_hints_are_refused_in_games_against_people(user, user_client):
    game = GameFactory(kind=Game.Kind.FRIENDS)
    PlayerFactory(game=game, user=user)
    PlayerFactory(game=game, seat=1)
    before = snapshot(game.pk)
    response = user_client.post(f"/games/{game.pk}/hints/", {"on": "1"}, **HX)
    assert response.status_code == 403
    assert "not available in games against other people" in response.content.decode()
    assert snapshot(game.pk) == before
    board = game_board(game=game, actor=Actor(user_id=user.pk))
    assert not board.can_hint and board.hints is None


def test_malformed_hints_request(user_client, user_actor):
    game = play.game_create_solo(actor=user_actor)
    before = snapshot(game.pk)
    assert user_client.post(f"/games/{game.pk}/hints/", {"on": "yes"}, **HX).status_code == 400
    assert snapshot(game.pk) == before


def test_hints_before_the_first_roll_show_the_expected_total(user_actor):
    hints = game_hints(sheet=Scoresheet(), dice_values=None, rolls_used=0)
    assert hints.expected_total == pytest.approx(254.4848458816832)


def test_player_model_has_no_bot_with_a_user():

    with pytest.raises(IntegrityError):
        Player.objects.create(
            game=GameFactory(), seat=0, user=PlayerFactory().user, bot_strength="hard", name="x"
        )
