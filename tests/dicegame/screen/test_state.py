"""One change worked out once for every viewer (dicegame.screen.state): the sheet's cells are made only
when a sheet is drawn, once for all seats, and each seat's rows still say what that seat may do."""

import re

import pytest
from django.utils import translation

from dicegame import events
from dicegame.models import Game, Player
from dicegame.screen.regions import live_update
from dicegame.screen.state import CHANGE_REGIONS, board_state
from dicegame.screen.view import board_for
from tests.support.factories import actor
from tests.support.games import current, roll, two_player_game

pytestmark = pytest.mark.django_db

BOX_BUTTON = re.compile(r'<button type="submit" form="game-form" class="box-button" data-box="(\w+)"[^>]*>')


def rolled_state():
    game, host, _friend = two_player_game()
    roll(game, actor(host))
    game = Game.objects.get(pk=game.pk)
    seats = list(Player.objects.filter(game=game).order_by("seat"))
    turn = current(game.pk)
    turn.player = next(p for p in seats if p.pk == turn.player_id)
    return board_state(game=game, players=seats, turn=turn), seats


def test_a_hold_is_drawn_without_making_the_sheet():
    state, seats = rolled_state()
    with translation.override("en"):
        pushes = [live_update(board_for(state, seat), CHANGE_REGIONS[events.HOLDS]) for seat in seats]
    assert all('id="dice-tray"' in html and 'id="scoresheet"' not in html for html in pushes)
    assert "cells" not in state.__dict__ and "cells_html" not in state.__dict__


def test_the_sheet_is_made_once_for_every_seat_and_each_seat_sees_its_own_buttons():
    state, seats = rolled_state()
    with translation.override("en"):
        acting, waiting = (live_update(board_for(state, seat), frozenset()) for seat in seats)
        cells = state.__dict__["cells_html"]
        assert state.cells_html is cells  # made once, for both seats' sheets
    choosable = [box for box, option in state.options.items() if option is not None]
    enabled = [m.group(1) for m in BOX_BUTTON.finditer(acting) if " disabled" not in m.group(0)]
    assert enabled == [box.name for box in choosable] and len(enabled) == 13
    assert all(" disabled" in m.group(0) for m in BOX_BUTTON.finditer(waiting))
    # The cells are the same markup in both seats' sheets.
    for box, html in cells.items():
        assert f"{html}</tr>" in acting and f"{html}</tr>" in waiting, box
