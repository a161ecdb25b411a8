"""A turn's moves on the locked game, once play has checked who may make them and when: rolling,
choosing a box, writing it and passing the turn on (or ending the game)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from dicegame.errors import GameActionError
from dicegame.labels import box_label
from dicegame.models import Game, Turn
from dicegame.play.finish import finish
from dicegame.play.kernel import start_turn
from dicegame.rules import dice
from dicegame.rules.scoring import Box, Scoresheet
from dicegame.rules.turn import MAX_ROLLS, QUESTION_HOLD_SECONDS, ROUNDS


def roll(game: Game, t: Turn) -> None:
    """Roll the dice that are not held, from the game's seed; the last roll starts the auto-commit."""
    if t.rolls_used >= MAX_ROLLS:
        raise GameActionError(_("You have rolled three times: choose a box and confirm the turn."))
    held = tuple(bool(h) for h in t.held) if t.dice else (False,) * 5
    if all(held):
        raise GameActionError(_("All five dice are held: release at least one to roll."))
    previous = tuple(t.dice) if t.dice else None
    new_dice = dice.roll_dice(game.seed, game.dice_namespace, t.number, t.rolls_used + 1, previous, held)
    t.rolls = [*t.rolls, {"dice": list(new_dice), "held": list(held)}]
    # One instant, to the millisecond the roll times keep: the auto-commit's time and the latest a
    # question may hold it (hold_auto_commit, from the roll time) then agree to the microsecond.
    now = timezone.now()
    now = now.replace(microsecond=now.microsecond // 1000 * 1000)
    t.roll_times = [*t.roll_times, round(now.timestamp(), 3)]
    t.dice = list(new_dice)
    t.held = list(held)
    # A selection was made for the old dice; the new dice need a new one.
    t.chosen_box = ""
    t.chosen_at = None
    seconds = auto_commit_seconds(t)
    t.auto_commit_at = (
        now + timedelta(seconds=seconds)
        if t.rolls_used == MAX_ROLLS and not t.player.computer_plays and seconds is not None
        else None
    )
    t.save(update_fields=["rolls", "roll_times", "dice", "held", "chosen_box", "chosen_at", "auto_commit_at"])


def auto_commit_seconds(t: Turn) -> float | None:
    """The seconds the turn's player has to choose a box after the last roll: their seat's own time (their
    setting, as far as the game allows: kernel.seat_auto_commit), else the site's; None when it is off."""
    own = t.player.auto_commit_seconds
    if own is None:
        return settings.PENTA_AUTO_COMMIT_SECONDS
    return own or None


def parse_box(name: str) -> Box:
    try:
        return Box[name]
    except KeyError:
        raise GameActionError(_("There is no such box on the scoresheet."), status=400) from None


def check_placement(sheet: Scoresheet, box: Box, dice_values: tuple[int, ...]) -> None:
    if box in sheet.boxes:
        raise GameActionError(_("%(box)s is already filled.") % {"box": box_label(box)})
    options = sheet.options(dice_values)
    if box not in options:
        allowed = ", ".join(box_label(b) for b in options)
        raise GameActionError(
            _("The forced joker does not allow %(box)s for this Penta; it may go in: %(allowed)s.")
            % {"box": box_label(box), "allowed": allowed}
        )


def choose(t: Turn, box: Box) -> None:
    """Select the box the turn will be written in; it stops the auto-commit."""
    if not t.dice:
        raise GameActionError(_("Roll first: there is nothing to score yet."))
    check_placement(t.player.sheet, box, tuple(t.dice))
    t.chosen_box = box.name
    t.chosen_at = timezone.now()
    t.auto_commit_at = None
    t.save(update_fields=["chosen_box", "chosen_at", "auto_commit_at"])


def hold_auto_commit(t: Turn) -> bool:
    """The page asks the player a question (a zero to confirm) while the auto-commit runs: the clock
    waits for the answer, QUESTION_HOLD_SECONDS from now, but never past QUESTION_HOLD_SECONDS after
    the auto-commit's own time, however often a question is asked (a question cannot stall the game).
    False when nothing was held: no countdown runs, or it is held as long as it may be already."""
    if t.auto_commit_at is None or not t.roll_times:
        return False
    hold = timedelta(seconds=QUESTION_HOLD_SECONDS)
    rolled = datetime.fromtimestamp(t.roll_times[-1], tz=UTC)
    latest = rolled + timedelta(seconds=auto_commit_seconds(t) or 0) + hold
    held = min(timezone.now() + hold, latest)
    if held <= t.auto_commit_at:
        return False
    t.auto_commit_at = held
    t.save(update_fields=["auto_commit_at"])
    return True


def write(game: Game, t: Turn, box: Box, *, auto: bool, at=None) -> None:
    """Score the turn in `box` as of `at` (now unless the clock catches up), then start the next turn
    or finish the game."""
    player = t.player
    sheet = player.sheet
    dice_values = tuple(t.dice)
    check_placement(sheet, box, dice_values)
    after = sheet.place(box, dice_values)
    player.store_sheet(after)
    player.save(update_fields=["boxes", "penta_bonus", "total"])
    t.box = box.name
    t.chosen_box = box.name
    t.points = after.boxes[box]
    t.bonus = after.penta_bonus - sheet.penta_bonus
    t.auto_committed = auto
    t.auto_commit_at = None
    t.completed_at = at or timezone.now()
    fields = ["box", "chosen_box", "points", "bonus", "auto_committed", "auto_commit_at", "completed_at"]
    t.save(update_fields=fields)
    # What this change wrote, for the screens to celebrate (dicegame.screen.moments): the turn, and
    # whether it reached the upper bonus. Kept on the game object the board of this change is built from.
    game.__dict__.setdefault("written", []).append((t, not sheet.upper_bonus and bool(after.upper_bonus)))
    _advance(game, t, at or timezone.now())


def _advance(game: Game, last: Turn, at) -> None:
    players = game.seats or list(game.players.order_by("seat"))
    seat = (last.player.seat + 1) % len(players)
    round_ = last.round + (1 if seat == 0 else 0)
    if round_ > ROUNDS:
        finish(game, players)
        return
    start_turn(game, players[seat], number=last.number + 1, round_=round_, at=at)
