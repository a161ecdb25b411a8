"""What the game socket answers the screen that sent an action, beside the push.

The acting screen gets its new board as every other screen does: from the push, rendered once per seat
after the commit (`live.pushes`), so nothing is rendered twice. The answer carries only what is this
request's alone, as the POST's answer does beyond the regions a push shares:

- an applied action: the message area emptied (a refusal shown before goes), marked with the action's
  id and the version it made (the page takes its next action once it shows that version), and, after
  the actions whose POST answer redraws everything, the person's next game waiting for them (a game
  against friends in which it is no longer their turn);
- a refused action: the POST's 409 answer itself (`dicegame.screen.regions.answer_update`), the
  refusal's message in the message area and the whole board from the database, a zero's question at
  its box, marked with the action's id and the refusal's status.

Run on the sockets' database threads (`live.db_threads`), in the screen's language.
"""

from __future__ import annotations

import dataclasses

from django.http import Http404
from django.urls import reverse

from dicegame import play
from dicegame.actors import Actor
from dicegame.errors import GameActionError
from dicegame.models import Game
from dicegame.play import selectors
from dicegame.screen import regions
from dicegame.screen import view as boards

# The actions whose POST answer redraws every region, the next game included (dicegame.web.views).
WHOLE_BOARD = frozenset({"roll", "confirm", "hurry", "take_back"})


def marker(answer_id: int | None, **figures: int) -> dict | None:
    """The message area's answer marker (regions.messages), for a message that carried an id."""
    return None if answer_id is None else {"id": answer_id, **figures}


def applied(game: Game, actor: Actor, *, name: str, message: dict) -> str:
    """The answer to an action that `game` (as the service returned it) shows applied."""
    out = [regions.messages((), oob=True, answer=marker(message.get("id"), version=game.version))]
    if name in WHOLE_BOARD or (name == "choose" and message.get("write")):
        waiting = None
        if game.kind == Game.Kind.FRIENDS and game.is_active:
            if game.seats is not None and game.turn_in_play is not None:
                # The rows the kernel read and wrote under the game's lock (a turn's action).
                seat = next((p for p in game.seats if actor.owns(p)), None)
                mine = seat is not None and game.turn_in_play.player_id == seat.pk
            else:  # an action on the game as a whole (take back): as the page would show it
                board = boards.game_board(game=game, actor=actor)
                seat, mine = board.my_seat, board.my_turn
            waiting = selectors.next_game_waiting(game=game, seat=seat, my_turn=mine)
        out.append(regions.next_game(waiting, oob=True))
    return "".join(out)


def refused(
    game_id: int, actor: Actor, token: str, exc: GameActionError, *, message: dict
) -> tuple[str, int]:
    """The answer to a refused action, and the version of the board it carries (-1: none)."""
    answer = marker(message.get("id"), status=exc.status)
    question = exc if isinstance(exc, play.ZeroNeedsConfirmation) else None
    try:
        game = selectors.game_for_viewer(game_id=game_id, actor=actor, token=token)
    except Http404:
        # Not a game the actor may see (any more): why, without anything of it.
        return regions.messages((), exc.message, oob=True, answer=answer), -1
    if game.is_open or game.is_cancelled:
        # A room before its start, or cancelled: its screen is redrawn by its own pushes.
        return regions.messages((), exc.message, oob=True, answer=answer), -1
    written = getattr(exc, "written", ())
    if written:
        # What the clock wrote just before (often the turn acted on), celebrated as the POST's answer does.
        game.written = list(written)
    board = boards.game_board(game=game, actor=actor)
    if question is not None and board.turn is not None:
        # Asked at the box tapped, in the sheet; the message area stays empty, as for htmx.
        ask = boards.Question(
            box=question.box,
            text=question.message,
            url=reverse("dicegame:choose", args=[game_id, question.box]),
            turn=board.turn.number,
            roll=board.rolls_used,
            csrf="",  # the page sends its own token (<body hx-headers>), as with a push's forms
        )
        board = dataclasses.replace(board, question=ask)
    html = regions.answer_update(
        board,
        regions=frozenset(),
        csrf="",
        token=token,
        message_items=(),
        error="" if question is not None else exc.message,
        waiting=selectors.next_game_waiting(game=game, seat=board.my_seat, my_turn=board.my_turn),
        answer=answer,
    )
    return html, game.version
