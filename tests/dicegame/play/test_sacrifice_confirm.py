"""A zero is asked to be confirmed when another open box scores: the choose action refuses (409, nothing
changed) with the question at the box and a confirm button; confirmed, it writes 0 (with `write`, at
once); a true sacrifice needs no asking; a running auto-commit waits for the answer, for a bounded time."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from dicegame import play
from dicegame.models import Game, Turn
from dicegame.rules.scoring import Box
from dicegame.rules.turn import QUESTION_HOLD_SECONDS
from tests.support import HX
from tests.support.clock import Clock
from tests.support.factories import client_for
from tests.support.games import current, rigged_turn, snapshot

pytestmark = pytest.mark.django_db


# 1 2 3 4 5: a large straight (40); Penta would score 0.
STRAIGHT = [1, 2, 3, 4, 5]


@pytest.mark.parametrize("htmx", [True, False])
def test_a_zero_without_confirmation_is_refused_and_changes_nothing(user, htmx):
    game = rigged_turn(user, STRAIGHT)
    turn = current(game.pk).number
    before = snapshot(game.pk)
    response = client_for(user).post(
        f"/games/{game.pk}/choose/PENTA/", {"turn": turn, "roll": 1}, **(HX if htmx else {})
    )
    assert response.status_code == 409
    html = response.content.decode()
    assert "Write 0 in Penta? Large straight would score 40." in html
    # The confirm button resubmits the same choice, confirmed (a plain form: works without JS).
    form = re.search(r"<form[^>]*data-confirm-zero[^>]*>.*?</form>", html, re.S).group(0)
    assert f'action="/games/{game.pk}/choose/PENTA/"' in form
    assert 'name="confirm_zero" value="1"' in form
    assert f'name="turn" value="{turn}"' in form and 'name="roll" value="1"' in form
    assert snapshot(game.pk) == before


def test_with_confirmation_the_zero_is_chosen_and_written(user):
    game = rigged_turn(user, STRAIGHT)
    turn = current(game.pk).number
    client = client_for(user)
    response = client.post(
        f"/games/{game.pk}/choose/PENTA/", {"turn": turn, "roll": 1, "confirm_zero": "1"}, **HX
    )
    assert response.status_code == 200
    assert Turn.objects.get(game=game, number=turn).chosen_box == "PENTA"
    client.post(f"/games/{game.pk}/confirm/", {"turn": turn, "roll": 1}, **HX)
    written = Turn.objects.get(game=game, number=turn)
    assert (written.box, written.points) == ("PENTA", 0)


def test_a_box_that_scores_needs_no_confirmation(user):
    game = rigged_turn(user, STRAIGHT)
    turn = current(game.pk).number
    response = client_for(user).post(f"/games/{game.pk}/choose/ONES/", {"turn": turn, "roll": 1}, **HX)
    assert response.status_code == 200
    assert Turn.objects.get(game=game, number=turn).chosen_box == "ONES"


def test_a_true_sacrifice_needs_no_confirmation(user):
    # Only Penta and Sixes open, no six on the dice: every open box scores 0.
    boxes = {b: 0 for b in Box if b not in (Box.PENTA, Box.SIXES)}
    game = rigged_turn(user, STRAIGHT, boxes)
    turn = current(game.pk).number
    response = client_for(user).post(f"/games/{game.pk}/choose/PENTA/", {"turn": turn, "roll": 1}, **HX)
    assert response.status_code == 200
    assert Turn.objects.get(game=game, number=turn).chosen_box == "PENTA"


def test_the_service_refuses_an_unconfirmed_zero(user, user_actor):
    game = rigged_turn(user, STRAIGHT)
    turn = current(game.pk).number
    before = snapshot(game.pk)
    with pytest.raises(play.ZeroNeedsConfirmation) as exc:
        play.turn_choose_box(
            game_id=game.pk, actor=user_actor, turn=turn, roll=1, box="FULL_HOUSE", confirm_zero=False
        )
    assert exc.value.status == 409 and exc.value.box == "FULL_HOUSE"
    assert snapshot(game.pk) == before


def test_a_refused_box_keeps_its_own_refusal(user):
    # A filled box is refused as filled, not asked about.
    game = rigged_turn(user, STRAIGHT, {Box.CHANCE: 15})
    turn = current(game.pk).number
    response = client_for(user).post(f"/games/{game.pk}/choose/CHANCE/", {"turn": turn, "roll": 1}, **HX)
    assert response.status_code == 409
    html = response.content.decode()
    assert "Chance is already filled." in html and "data-confirm-zero" not in html


def test_dutch_question(user):
    game = rigged_turn(user, STRAIGHT)
    turn = current(game.pk).number
    client = client_for(user)
    client.cookies["django_language"] = "nl"
    response = client.post(
        f"/games/{game.pk}/choose/PENTA/", {"turn": turn, "roll": 1}, HTTP_ACCEPT_LANGUAGE="nl", **HX
    )
    assert response.status_code == 409
    assert "0 invullen bij Penta?" in response.content.decode()


# -- asked at its box, answered in one tap, and the countdown held meanwhile (issue 22, item 2) ----------


@pytest.fixture
def clock(monkeypatch):
    return Clock(monkeypatch, timezone.now())


def third_roll_straight(user_actor, clock) -> tuple:
    """A solo game after its third roll, the dice a large straight: Penta would score 0. Returns the game
    and the auto-commit's own time."""
    game = play.game_create_solo(actor=user_actor)
    for n in range(3):
        play.turn_roll(game_id=game.pk, actor=user_actor, turn=1, roll=n)
    Turn.objects.filter(game=game, number=1).update(dice=STRAIGHT)
    return game, current(game.pk).auto_commit_at


def ask(user_actor, game, box="PENTA"):
    with pytest.raises(play.ZeroNeedsConfirmation) as exc:
        play.turn_choose_box(game_id=game.pk, actor=user_actor, turn=1, roll=3, box=box, confirm_zero=False)
    return exc.value


def test_a_question_holds_the_auto_commit_for_its_answer(user_actor, clock, strategy):
    game, due = third_roll_straight(user_actor, clock)
    version = Game.objects.get(pk=game.pk).version
    clock.advance(seconds=2)
    assert ask(user_actor, game).box == "PENTA"
    turn = current(game.pk)
    # Nothing chosen; the clock waits QUESTION_HOLD_SECONDS from the question for the answer.
    assert turn.chosen_box == "" and turn.auto_commit_at == clock.now + timedelta(
        seconds=QUESTION_HOLD_SECONDS
    )
    assert Game.objects.get(pk=game.pk).version == version + 1  # screens learn of the held countdown
    clock.set(due + timedelta(seconds=1))
    play.games_settle_overdue()
    assert current(game.pk).number == 1, "the clock wrote behind an open question"
    # The answer comes: Yes writes the 0 at once.
    play.turn_choose_box(
        game_id=game.pk, actor=user_actor, turn=1, roll=3, box="PENTA", confirm_zero=True, write=True
    )
    written = Turn.objects.get(game=game, number=1)
    assert (written.box, written.points, written.auto_committed) == ("PENTA", 0, False)
    assert current(game.pk).number == 2


def test_questions_cannot_hold_the_game_forever(user_actor, clock, strategy):
    game, due = third_roll_straight(user_actor, clock)
    latest = due + timedelta(seconds=QUESTION_HOLD_SECONDS)
    clock.advance(seconds=2)
    ask(user_actor, game)
    for _ in range(5):  # asked again and again, just before each held time runs out
        clock.set(current(game.pk).auto_commit_at - timedelta(milliseconds=100))
        before = snapshot(game.pk) if current(game.pk).auto_commit_at == latest else None
        ask(user_actor, game, box="FULL_HOUSE")
        assert current(game.pk).auto_commit_at <= latest
        if before is not None:
            assert snapshot(game.pk) == before  # held as long as it may: the question changes nothing
    clock.set(latest + timedelta(milliseconds=1))
    play.games_settle_overdue()
    assert Turn.objects.get(game=game, number=1).auto_committed


def test_yes_needs_the_confirmation_to_write(user):
    game = rigged_turn(user, STRAIGHT)
    turn = current(game.pk).number
    before = snapshot(game.pk)
    response = client_for(user).post(
        f"/games/{game.pk}/choose/PENTA/", {"turn": turn, "roll": 1, "write": "1"}, **HX
    )
    assert response.status_code == 409
    assert snapshot(game.pk) == before


def test_yes_writes_the_zero_in_one_request(user):
    game = rigged_turn(user, STRAIGHT)
    turn = current(game.pk).number
    response = client_for(user).post(
        f"/games/{game.pk}/choose/PENTA/", {"turn": turn, "roll": 1, "confirm_zero": "1", "write": "1"}, **HX
    )
    assert response.status_code == 200
    written = Turn.objects.get(game=game, number=turn)
    assert (written.box, written.points) == ("PENTA", 0)
    assert current(game.pk).number == turn + 1
    assert 'data-score="0"' in response.content.decode()


def test_the_question_is_asked_in_the_row_under_its_box(user):
    game = rigged_turn(user, STRAIGHT)
    turn = current(game.pk).number
    html = (
        client_for(user)
        .post(f"/games/{game.pk}/choose/PENTA/", {"turn": turn, "roll": 1}, **HX)
        .content.decode()
    )
    row = re.search(
        r'<tr class="box-row"><th scope="row"><button[^>]*data-box="PENTA".*?</tr>\s*(<tr.*?</tr>)',
        html,
        re.S,
    )
    assert row and "data-zero-question" in row.group(1)
    question = row.group(1)
    assert "Write 0 in Penta? Large straight would score 40." in question
    assert 'name="write" value="1"' in question and "csrfmiddlewaretoken" in question
    # No redraws the board without the question (a link back to the page without JavaScript).
    assert f'<a class="button-link" href="/games/{game.pk}/" hx-get="/games/{game.pk}/"' in question
    assert 'data-action="zero-no" hx-headers=\'{"X-Penta-Resync": "1"}\'>No</a>' in question
    # With JavaScript the question is at the box alone; the message area stays quiet.
    assert 'class="msg msg-error"' not in html
