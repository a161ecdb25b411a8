"""A zero is asked to be confirmed when another open box scores: the choose action refuses (409, nothing
changed) with the question and a confirm button; confirmed, it writes 0; a true sacrifice needs no asking."""

import re

import pytest

from dicegame import play
from dicegame.models import Turn
from dicegame.rules.scoring import Box
from tests.support import HX
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
