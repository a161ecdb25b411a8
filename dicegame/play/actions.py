"""The actions of a turn, as a person makes them: roll, hold or release a die, choose a box, confirm.

Each action runs in one transaction holding the game's row lock, so a double click or two tabs cannot
roll or score twice. An action also names the turn and the number of rolls its page showed; if the
game has moved on since, the action is refused (409) instead of being applied to dice the player never
saw. A refused action changes nothing (what the clock had made due meanwhile stands).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.db import transaction
from django.utils.translation import gettext as _

from core import metrics
from dicegame import events
from dicegame.actors import Actor
from dicegame.errors import GameActionError, GameNotFound
from dicegame.labels import box_label
from dicegame.models import Game, Turn
from dicegame.play import moves
from dicegame.play.clock import settle_locked
from dicegame.play.kernel import announce, check_active, current_turn, lock_bump_and_read
from dicegame.rules.scoring import Box
from dicegame.rules.turn import MAX_ROLLS


def _act(
    game_id: int,
    actor: Actor,
    turn_number: int,
    rolls_seen: int,
    action: Callable[[Game, Turn], None],
    change: str | None = None,
    *,
    kind: str,
) -> Game:
    """Lock the game, settle an overdue auto-commit, check who and when, then apply `action`.

    Two SQL statements for a roll, a hold or a choice on PostgreSQL (the lock with the new version, the
    seats and the turn in one; the turn's update), four on SQLite: the hot path of every live game.
    `kind` names the action for the operators' metrics (`core.metrics`)."""
    started = time.time()
    try:
        game = _act_locked(game_id, actor, turn_number, rolls_seen, action, change, started)
    except GameActionError:
        metrics.REFUSED.labels(kind).inc()
        raise
    metrics.ACTIONS.labels(kind).inc()
    return game


def _act_locked(game_id, actor, turn_number, rolls_seen, action, change, started: float) -> Game:
    error: GameActionError | None = None
    with transaction.atomic():
        game = lock_bump_and_read(game_id)
        # When the action was taken: its pushes carry it, and the sockets time their writing from it.
        game.acted_at = started
        status = game.status
        players = game.seats
        if not any(actor.owns(p) for p in players):
            # Someone else's game: answer as if it did not exist.
            raise GameNotFound(_("There is no such game."))
        # What the clock made due (an auto-commit, the computer's moves) stands whatever becomes of
        # this action.
        settled = settle_locked(game)
        try:
            # A refused action rolls back to here (a savepoint only when there is a settlement to keep).
            with transaction.atomic(savepoint=bool(settled)):
                check_active(game)
                turn = current_turn(game)
                if not actor.owns(turn.player):
                    raise GameActionError(_("It is not your turn."))
                if turn.player.left_at is not None:
                    raise GameActionError(_("You have already left this game."), status=403)
                if turn.player.stand_in:
                    raise GameActionError(_("The computer is keeping your seat: take it back first."))
                if turn.player.challenged:
                    raise GameActionError(_("Accept the challenge first: then the move is yours."))
                if turn.number != turn_number or turn.rolls_used != rolls_seen:
                    raise GameActionError(
                        _(
                            "The game moved on since this page was shown (another tab or a double "
                            "click): the board is up to date now."
                        )
                    )
                action(game, turn)
                if turn.player.missed_turns:
                    turn.player.missed_turns = 0
                    turn.player.save(update_fields=["missed_turns"])
        except GameActionError as exc:
            if not settled:
                raise  # nothing to keep: the new version rolls back with everything else
            # What the clock wrote meanwhile (an auto-commit, often the very turn the player acted
            # on): the refusal's answer shows it, as the push does.
            exc.written = list(game.written)
            error = exc
        if game.status != status:
            game.save(update_fields=["status", "finished_at"])
        announce(game, change=None if settled else change)
    if error is not None:
        raise error
    return game


def turn_roll(*, game_id: int, actor: Actor, turn: int, roll: int) -> Game:
    """Roll the dice that are not held. `roll` is the number of rolls already made (as shown)."""
    return _act(game_id, actor, turn, roll, moves.roll, kind="roll")


def turn_toggle_hold(*, game_id: int, actor: Actor, turn: int, roll: int, die: int) -> Game:
    """Hold or release die `die` (1-5)."""
    if die not in range(1, 6):
        raise GameActionError(_("There are five dice, numbered 1 to 5."), status=400)

    def action(game: Game, t: Turn) -> None:
        if not t.dice:
            raise GameActionError(_("Roll first: there are no dice to hold yet."))
        if t.rolls_used >= MAX_ROLLS:
            raise GameActionError(_("No rolls are left: holding dice changes nothing now."))
        held = list(t.held)
        held[die - 1] = not held[die - 1]
        t.held = held
        t.save(update_fields=["held"])

    return _act(game_id, actor, turn, roll, action, change=events.HOLDS, kind="hold")


class ZeroNeedsConfirmation(GameActionError):
    """A person chose a box that would score 0 while another open box scores: the page asks first.
    `box` is the chosen box's name, for the confirm button that resubmits with `confirm_zero=1`."""

    def __init__(self, message: str, *, box: str):
        super().__init__(message)
        self.box = box


def _zero_question(t: Turn, box: Box) -> ZeroNeedsConfirmation | None:
    """The question to ask before a zero while another open box scores (a true sacrifice, every box 0,
    needs no asking)."""
    if not t.dice:
        return None
    options = t.player.sheet.options(tuple(t.dice))
    if options.get(box, 1) != 0:
        return None
    best_box, best_points = max(options.items(), key=lambda item: item[1])
    if best_points <= 0:
        return None
    return ZeroNeedsConfirmation(
        _("Write 0 in %(box)s? %(other)s would score %(points)s.")
        % {"box": box_label(box), "other": box_label(best_box), "points": best_points},
        box=box.name,
    )


def turn_choose_box(
    *,
    game_id: int,
    actor: Actor,
    turn: int,
    roll: int,
    box: str,
    confirm_zero: bool = True,
    write: bool = False,
) -> Game:
    """Select the box the turn will be written in (confirming writes it), or with `write` select it
    and write it at once. Stops the auto-commit.

    The game page passes `confirm_zero=False` until the person has confirmed a zero: a box that would
    score 0 while another open box scores is then not chosen but asked about (ZeroNeedsConfirmation).
    The question changes nothing, except that a running auto-commit waits for the answer, for a bounded
    time (moves.hold_auto_commit): the clock never writes behind an open question, and a question
    cannot stall the game. Where nothing is held, the question rolls back like any refusal."""
    chosen = moves.parse_box(box)
    asked: list[ZeroNeedsConfirmation] = []

    def action(game: Game, t: Turn) -> None:
        question = None if confirm_zero else _zero_question(t, chosen)
        if question is not None:
            if not moves.hold_auto_commit(t):
                raise question
            asked.append(question)
            return
        moves.choose(t, chosen)
        if write:
            moves.write(game, t, chosen, auto=False)

    game = _act(game_id, actor, turn, roll, action, change=None if write else events.CHOICE, kind="choose")
    if asked:
        raise asked[0]  # after the commit: the held auto-commit stands, the question goes to the page
    return game


def turn_confirm(*, game_id: int, actor: Actor, turn: int, roll: int) -> Game:
    """Write the dice in the chosen box and pass the turn on."""

    def action(game: Game, t: Turn) -> None:
        if not t.dice:
            raise GameActionError(_("Roll first: there is nothing to score yet."))
        if not t.chosen_box:
            raise GameActionError(_("Choose a box before you confirm the turn."))
        moves.write(game, t, Box[t.chosen_box], auto=False)

    return _act(game_id, actor, turn, roll, action, kind="confirm")
