"""The turn flow: the only code that changes a game.

Each action runs in one transaction holding the game's row lock, so a double click or two tabs cannot
roll or score twice. An action also names the turn and the number of rolls its page showed; if the
game has moved on since, the action is refused (409) instead of being applied to dice the player never
saw. The rules (`dicegame.rules.scoring`) decide *what* is legal; this module decides *who* and *when*.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from dicegame.actors import Actor
from dicegame.analysis_store import analyse_pending  # it imports nothing of services back
from dicegame.errors import GameActionError, GameNotFound
from dicegame.labels import bot_name, box_label
from dicegame.models import Game, Player, Turn
from dicegame.prepared import PreparedSelect, PreparedUpdateReturning, save_fields
from dicegame.rules import dice
from dicegame.rules.days import day_end
from dicegame.rules.scoring import Box, Scoresheet
from dicegame.rules.turn import ROUNDS
from dicegame.strategy import STRENGTHS, Bot
from dicegame.strategy.computer import auto_commit_box, next_step
from ratings.services import game_rate  # it imports nothing of services back

logger = logging.getLogger(__name__)

MAX_ROLLS = 3


# -- creating games ----------------------------------------------------------------------------------


MAX_COMPUTER_OPPONENTS = 3


def _create(actor: Actor, kind: str, bots: list[str], *, seed: str | None = None, daily_date=None) -> Game:
    """A new game with its first turn. `seed` and `daily_date`: a daily challenge's game, on the day's
    seed drawn and committed to ahead (`daily.services.attempt_start`)."""
    if actor.user_id is None and not actor.guest_key:
        raise GameActionError(_("Start a game from the home page."), status=400)
    seed = seed or dice.new_seed()
    game = Game.objects.create(
        kind=kind, seed=seed, seed_commitment=dice.commitment(seed), daily_date=daily_date
    )
    human = Player.objects.create(
        game=game,
        seat=0,
        user_id=actor.user_id,
        guest_key="" if actor.user_id is not None else actor.guest_key,
        name=actor.name or _("Guest"),
    )
    for seat, strength in enumerate(bots, start=1):
        Player.objects.create(
            game=game, seat=seat, bot_strength=strength, name=bot_name(strength, seat, len(bots))
        )
    Turn.objects.create(game=game, player=human, number=1, round=1, held=[False] * 5)
    return game


@transaction.atomic
def game_create_solo(*, actor: Actor) -> Game:
    return _create(actor, Game.Kind.SOLO, [])


@transaction.atomic
def game_create_vs_computer(*, actor: Actor, strengths: list[str]) -> Game:
    """A game against 1 to 3 computer players, each of a strength in STRENGTHS; the person plays first."""
    if not 1 <= len(strengths) <= MAX_COMPUTER_OPPONENTS:
        raise GameActionError(
            _("A game against the computer has 1 to %(max)d computer opponents.")
            % {"max": MAX_COMPUTER_OPPONENTS},
            status=400,
        )
    unknown = [s for s in strengths if s not in STRENGTHS]
    if unknown:
        raise GameActionError(
            _("Unknown strength %(name)s: choose easy, medium or hard.") % {"name": repr(unknown[0])},
            status=400,
        )
    return _create(actor, Game.Kind.COMPUTER, list(strengths))


# -- the actions of a turn ---------------------------------------------------------------------------


def _locked_game(game_id: int) -> Game:
    try:
        return Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        raise GameNotFound(_("There is no such game.")) from None


# The statements of every action, compiled once (dicegame.prepared).
_LOCK_AND_BUMP = PreparedUpdateReturning(
    Game, lambda q: f"{q('version')} = {q('version')} + 1, {q('updated_at')} = %s"
)
_SEATS = PreparedSelect(lambda game_id: Player.objects.filter(game_id=game_id).order_by("seat"), (0,))
_TURN_IN_PLAY = PreparedSelect(
    lambda game_id: Turn.objects.filter(game_id=game_id, completed_at__isnull=True).order_by("number")[:1],
    (0,),
)


def _current_turn(game: Game) -> Turn | None:
    """The turn in play, read once per locked game (writing a turn or starting one updates it)."""
    cached = getattr(game, "_turn_in_play", None)
    if cached is not None and cached.completed_at is None:
        return cached
    seats = getattr(game, "seats", None)
    if seats is not None:
        turn = next(iter(_TURN_IN_PLAY.fetch(game.pk)), None)
        if turn is not None:
            # The same Player objects as the game's seats, so a score written is seen by both.
            turn.player = next(p for p in seats if p.pk == turn.player_id)
    else:
        turns = Turn.objects.filter(game=game, completed_at__isnull=True).order_by("number")
        turn = turns.select_related("player").first()
    game._turn_in_play = turn
    return turn


def _act(
    game_id: int,
    actor: Actor,
    turn_number: int,
    rolls_seen: int,
    action: Callable[[Game, Turn], None],
    change: str | None = None,
) -> Game:
    """Lock the game, settle an overdue auto-commit, check who and when, then apply `action`.

    Four SQL statements for a roll, a hold or a choice (the lock with the new version, the seats, the
    turn, the turn's update): the hot path of every live game."""
    error: GameActionError | None = None
    with transaction.atomic():
        game = _lock_and_bump(game_id)
        status = game.status
        players = game.seats = _SEATS.fetch(game_id)
        if not any(actor.owns(p) for p in players):
            # Someone else's game: answer as if it did not exist.
            raise GameNotFound(_("There is no such game."))
        # What the clock made due (an auto-commit, the computer's moves) stands whatever becomes of
        # this action.
        settled = _settle_locked(game)
        try:
            # A refused action rolls back to here (a savepoint only when there is a settlement to keep).
            with transaction.atomic(savepoint=bool(settled)):
                _check_active(game)
                turn = _current_turn(game)
                if not actor.owns(turn.player):
                    raise GameActionError(_("It is not your turn."))
                if turn.player.left_at is not None:
                    raise GameActionError(_("You have already left this game."), status=403)
                if turn.player.stand_in:
                    raise GameActionError(_("The computer is keeping your seat: take it back first."))
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
            error = exc
        if game.status != status:
            game.save(update_fields=["status", "finished_at"])
        _announce(game, change=None if settled else change)
    if error is not None:
        raise error
    return game


def _lock_and_bump(game_id: int) -> Game:
    """Take the game's row lock, read it and count the change, in one statement. A change that is
    refused rolls back with its transaction, the new version with it."""
    game = _LOCK_AND_BUMP.fetch(timezone.now(), game_id)
    if game is None:
        raise GameNotFound(_("There is no such game."))
    return game


def _check_active(game: Game) -> None:
    if game.is_finished:
        raise GameActionError(_("This game is over."))
    if game.is_open:
        raise GameActionError(_("This game has not started yet."))
    if game.status == Game.Status.EXPIRED:
        raise GameActionError(_("This game has expired."))
    if game.status == Game.Status.CANCELLED:
        raise GameActionError(_("The host cancelled this room."), status=410)


def _bump(game: Game, change: str | None = None) -> None:
    """Record a change: a new version, pushed to every open screen of the game once it is committed.
    `change` names a small change ("holds", "choice") that screens may redraw in part; None: anything."""
    game.version += 1
    game.save(update_fields=["version", "status", "finished_at", "updated_at"])
    _announce(game, change)


def _announce(game: Game, change: str | None) -> None:
    # A solo game has one screen, which the answer to its own request updates; every other game is
    # watched live (other players, spectators, the computer's moves).
    if game.kind != Game.Kind.SOLO:
        from dicegame.live import pushes  # the pushes render boards, which are built on this module

        pushes.after_commit(game, change)


def _roll(game: Game, t: Turn) -> None:
    if t.rolls_used >= MAX_ROLLS:
        raise GameActionError(_("You have rolled three times: choose a box and confirm the turn."))
    held = tuple(bool(h) for h in t.held) if t.dice else (False,) * 5
    if all(held):
        raise GameActionError(_("All five dice are held: release at least one to roll."))
    previous = tuple(t.dice) if t.dice else None
    new_dice = dice.roll_dice(game.seed, game.dice_namespace, t.number, t.rolls_used + 1, previous, held)
    t.rolls = [*t.rolls, {"dice": list(new_dice), "held": list(held)}]
    t.dice = list(new_dice)
    t.held = list(held)
    # A selection was made for the old dice; the new dice need a new one.
    t.chosen_box = ""
    t.auto_commit_at = (
        timezone.now() + timedelta(seconds=settings.PENTA_AUTO_COMMIT_SECONDS)
        if t.rolls_used == MAX_ROLLS and not t.player.computer_plays
        else None
    )
    save_fields(t, ["rolls", "dice", "held", "chosen_box", "auto_commit_at"])


def turn_roll(*, game_id: int, actor: Actor, turn: int, roll: int) -> Game:
    """Roll the dice that are not held. `roll` is the number of rolls already made (as shown)."""
    return _act(game_id, actor, turn, roll, _roll)


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
        save_fields(t, ["held"])

    return _act(game_id, actor, turn, roll, action, change="holds")


def _parse_box(name: str) -> Box:
    try:
        return Box[name]
    except KeyError:
        raise GameActionError(_("There is no such box on the scoresheet."), status=400) from None


def _check_placement(sheet: Scoresheet, box: Box, dice_values: tuple[int, ...]) -> None:
    if box in sheet.boxes:
        raise GameActionError(_("%(box)s is already filled.") % {"box": box_label(box)})
    options = sheet.options(dice_values)
    if box not in options:
        allowed = ", ".join(box_label(b) for b in options)
        raise GameActionError(
            _("The forced joker does not allow %(box)s for this Penta; it may go in: %(allowed)s.")
            % {"box": box_label(box), "allowed": allowed}
        )


def _choose(t: Turn, box: Box) -> None:
    if not t.dice:
        raise GameActionError(_("Roll first: there is nothing to score yet."))
    _check_placement(t.player.sheet, box, tuple(t.dice))
    t.chosen_box = box.name
    t.auto_commit_at = None
    save_fields(t, ["chosen_box", "auto_commit_at"])


class ZeroNeedsConfirmation(GameActionError):
    """A person chose a box that would score 0 while another open box scores: the page asks first.
    `box` is the chosen box's name, for the confirm button that resubmits with `confirm_zero=1`."""

    def __init__(self, message: str, *, box: str):
        super().__init__(message)
        self.box = box


def _check_zero(t: Turn, box: Box) -> None:
    """Refuse a zero while another open box scores (a true sacrifice, every box 0, needs no asking)."""
    if not t.dice:
        return
    options = t.player.sheet.options(tuple(t.dice))
    if options.get(box, 1) != 0:
        return
    best_box, best_points = max(options.items(), key=lambda item: item[1])
    if best_points <= 0:
        return
    raise ZeroNeedsConfirmation(
        _("Write 0 in %(box)s? %(other)s would score %(points)s.")
        % {"box": box_label(box), "other": box_label(best_box), "points": best_points},
        box=box.name,
    )


def turn_choose_box(
    *, game_id: int, actor: Actor, turn: int, roll: int, box: str, confirm_zero: bool = True
) -> Game:
    """Select the box the turn will be written in (confirming writes it). Stops the auto-commit.

    The game page passes `confirm_zero=False` until the person has confirmed a zero: a box that would
    score 0 while another open box scores is then refused (ZeroNeedsConfirmation, changing nothing)."""
    chosen = _parse_box(box)

    def action(game: Game, t: Turn) -> None:
        if not confirm_zero:
            _check_zero(t, chosen)
        _choose(t, chosen)

    return _act(game_id, actor, turn, roll, action, change="choice")


def turn_confirm(*, game_id: int, actor: Actor, turn: int, roll: int) -> Game:
    """Write the dice in the chosen box and pass the turn on."""

    def action(game: Game, t: Turn) -> None:
        if not t.dice:
            raise GameActionError(_("Roll first: there is nothing to score yet."))
        if not t.chosen_box:
            raise GameActionError(_("Choose a box before you confirm the turn."))
        _write(game, t, Box[t.chosen_box], auto=False)

    return _act(game_id, actor, turn, roll, action)


def _write(game: Game, t: Turn, box: Box, *, auto: bool, at=None) -> None:
    """Score the turn in `box`, then start the next turn or finish the game."""
    player = t.player
    sheet = player.sheet
    dice_values = tuple(t.dice)
    _check_placement(sheet, box, dice_values)
    after = sheet.place(box, dice_values)
    player.store_sheet(after)
    save_fields(player, ["boxes", "penta_bonus", "total"])
    t.box = box.name
    t.chosen_box = box.name
    t.points = after.boxes[box]
    t.bonus = after.penta_bonus - sheet.penta_bonus
    t.auto_committed = auto
    t.auto_commit_at = None
    t.completed_at = timezone.now()
    save_fields(
        t, ["box", "chosen_box", "points", "bonus", "auto_committed", "auto_commit_at", "completed_at"]
    )
    # What this change wrote, for the screens to celebrate (dicegame.moments): the turn, and whether it
    # reached the upper bonus. Kept on the game object the board of this change is built from.
    game.__dict__.setdefault("_written", []).append((t, not sheet.upper_bonus and bool(after.upper_bonus)))
    _advance(game, t, at or timezone.now())


def _advance(game: Game, last: Turn, at) -> None:
    players = getattr(game, "seats", None) or list(game.players.order_by("seat"))
    seat = (last.player.seat + 1) % len(players)
    round_ = last.round + (1 if seat == 0 else 0)
    if round_ > ROUNDS:
        _finish(game, players)
        return
    _start_turn(game, players[seat], number=last.number + 1, round_=round_, at=at)


def _start_turn(game: Game, player: Player, *, number: int, round_: int, at) -> Turn:
    game._turn_in_play = None
    turn = Turn.objects.create(
        game=game,
        player=player,
        number=number,
        round=round_,
        held=[False] * 5,
        stand_in=player.stand_in,
        next_step_at=at + _bot_pace() if player.computer_plays else None,
        deadline_at=None if player.computer_plays else _turn_deadline(game, player, at),
    )
    turn.player = player
    game._turn_in_play = turn
    return turn


def _turn_deadline(game: Game, player: Player, at):
    """The turn timer of a game against friends; a player with no open screen gets a grace period
    even when the timer is off, so an absent player never stalls the table."""
    if game.kind != Game.Kind.FRIENDS:
        return None
    if game.turn_seconds:
        return at + timedelta(seconds=game.turn_seconds)
    if not player.connected:
        return at + timedelta(seconds=settings.PENTA_ABSENT_GRACE_SECONDS)
    return None


def _finish(game: Game, players: list[Player]) -> None:
    # Equal totals share a place: a seat's rank is one more than the number of better totals. A seat
    # whose person resigned or left (`left_at`) ranks after every seat that played on: it is a loss.
    stayed = [p for p in players if p.left_at is None]
    for player in players:
        if player.left_at is None:
            player.rank = 1 + sum(1 for other in stayed if other.total > player.total)
        else:
            left = [p for p in players if p.left_at is not None]
            player.rank = 1 + len(stayed) + sum(1 for other in left if other.total > player.total)
        player.save(update_fields=["rank"])
    game.status = Game.Status.FINISHED
    game.finished_at = timezone.now()
    if game.rated:
        # In this transaction, under the game's row lock: the ratings move with the end, once.
        game_rate(game, players)
    # The review's analysis is computed once, right after the end, so the review opens instantly.
    transaction.on_commit(partial(_analyse, game.pk))


def _analyse(game_id: int) -> None:
    try:
        analyse_pending([game_id])
    except Exception:  # the game is saved; the review computes the analysis on first view instead
        logger.exception("could not analyse game %s", game_id)
    try:
        # The people's large, clear mistakes become puzzles (imported here: the puzzles app's models
        # must not load while this module does; `build_puzzles` catches up on anything missed).
        from puzzles.services import add_game_puzzles

        add_game_puzzles(game_id)
    except Exception:
        logger.exception("could not add the puzzles of game %s", game_id)


# -- timers ------------------------------------------------------------------------------------------


def _bot_pace() -> timedelta:
    return timedelta(seconds=settings.PENTA_BOT_STEP_SECONDS)


def _settle_locked(game: Game, *, hurry: bool = False) -> int:
    """Apply what the server's clock says is due (the caller holds the game's row lock): an overdue
    auto-commit, a turn timer run out, and the computer's moves, one visible step per pace. With
    `hurry`, the computer plays on at once until a person's turn. Returns how many changes were made."""
    changes = 0
    now = timezone.now()
    if game.is_active and game.daily_date is not None and now >= day_end(game.daily_date):
        # The daily challenge's day is over and its seed is public now: the game ends as it stands.
        _close_daily(game)
        return 1
    while game.is_active:
        turn = _current_turn(game)
        if turn.player.computer_plays:
            due = turn.next_step_at or now
            if due > now and not hurry:
                break
            _bot_step(game, turn, min(due, now))
        elif turn.auto_commit_at is not None and turn.auto_commit_at <= now:
            _write(game, turn, auto_commit_box(turn.player.sheet, tuple(turn.dice)), auto=True)
        elif turn.deadline_at is not None and turn.deadline_at <= now:
            _time_out(game, turn, now)
        else:
            break
        changes += 1
    return changes


def _close_daily(game: Game) -> None:
    """A daily game unfinished when its day ended: the boxes written count, the rest stay empty, the
    turn in play is dropped, and the seat is marked as left at the day's end (shown as resigned), as
    `game_resign` does."""
    players = list(getattr(game, "seats", None) or game.players.order_by("seat"))
    end = day_end(game.daily_date)
    for player in players:
        if not player.is_bot and player.left_at is None:
            player.left_at = end
            player.save(update_fields=["left_at"])
    Turn.objects.filter(game=game, completed_at__isnull=True).delete()
    game._turn_in_play = None
    _finish(game, players)


def _time_out(game: Game, turn: Turn, now) -> None:
    """The turn timer ran out: the computer plays this turn optimally; a second miss in a row hands the
    seat to the computer until its player takes it back."""
    player = turn.player
    player.missed_turns += 1
    player.stand_in = player.missed_turns >= 2
    player.save(update_fields=["missed_turns", "stand_in"])
    turn.stand_in = True
    turn.deadline_at = None
    turn.auto_commit_at = None
    turn.save(update_fields=["stand_in", "deadline_at", "auto_commit_at"])
    while not turn.is_complete:
        _bot_step(game, turn, now)


def _bot_step(game: Game, t: Turn, due) -> None:
    """One move of a computer player. The next one is due a pace after this one was, so a game
    nobody watched catches up at once when it is next touched."""
    step = next_step(
        Bot(t.player.bot_strength or "hard"),
        t.player.sheet,
        tuple(t.dice) if t.dice else None,
        list(t.held),
        t.rolls_used,
        Box[t.chosen_box] if t.chosen_box else None,
    )
    if step.kind == "confirm":
        _write(game, t, Box[t.chosen_box], auto=False, at=due)
        return
    if step.kind == "roll":
        _roll(game, t)
    elif step.kind == "hold":
        t.held = list(step.held)
        t.save(update_fields=["held"])
    else:
        _choose(t, step.box)
    t.next_step_at = due + _bot_pace()
    t.save(update_fields=["next_step_at"])


def _locked_for_actor(game_id: int, actor: Actor) -> Game:
    game = _locked_game(game_id)
    if not any(actor.owns(p) for p in game.players.all()):
        raise GameNotFound(_("There is no such game."))
    return game


@transaction.atomic
def game_hurry(*, game_id: int, actor: Actor) -> Game:
    """The person does not want to watch: the computer players finish their turns now."""
    game = _locked_for_actor(game_id, actor)
    _check_active(game)
    if not _settle_locked(game, hurry=True):
        raise GameActionError(_("It is your turn: the computer has nothing left to play."))
    _bump(game)
    return game


@transaction.atomic
def game_set_hints(*, game_id: int, actor: Actor, on: bool) -> Game:
    """Switch the optimal-play hints on or off for the actor's seat. Never in games against people."""
    game = _locked_for_actor(game_id, actor)
    if game.rated:
        raise GameActionError(_("Hints are off in rated games."))
    if game.kind == Game.Kind.FRIENDS:
        raise GameActionError(_("Hints are not available in games against other people."), status=403)
    if game.daily_date is not None:
        raise GameActionError(_("There are no hints in the daily challenge."))
    _check_active(game)
    # Every seat the actor plays: one, or all the people's seats of a local game (hints for the game).
    for seat in (p for p in game.players.all() if actor.owns(p)):
        seat.hints = on
        seat.save(update_fields=["hints"])
    if on:
        game.hints_used = True
        game.save(update_fields=["hints_used"])
    _bump(game)
    return game


def game_settle(*, game_id: int, written: list | None = None) -> bool:
    """Apply whatever the server's clock says is due in this game. Safe to call at any time and from
    any number of processes: the row lock makes each change happen once. `written` (a list), if given,
    receives the turns written (see `_write`), for the answer's moments."""
    with transaction.atomic():
        try:
            game = Game.objects.select_for_update().get(pk=game_id)
        except Game.DoesNotExist:
            return False
        if not _settle_locked(game):
            return False
        _bump(game)
        if written is not None:
            written.extend(getattr(game, "_written", ()))
        return True


def games_settle_overdue(*, game_ids=None) -> int:
    """Settle every game (or those of `game_ids`) where something is due; returns how many changed."""
    now = timezone.now()
    due = Turn.objects.filter(completed_at__isnull=True, game__status=Game.Status.ACTIVE).filter(
        Q(auto_commit_at__lte=now) | Q(next_step_at__lte=now) | Q(deadline_at__lte=now)
    )
    if game_ids is not None:
        due = due.filter(game_id__in=game_ids)
    return sum(game_settle(game_id=game_id) for game_id in set(due.values_list("game_id", flat=True)))


def turn_auto_commit_remaining(turn: Turn) -> float | None:
    """Seconds left before the auto-commit, or None when no countdown runs."""
    if turn.auto_commit_at is None:
        return None
    return max(0.0, (turn.auto_commit_at - timezone.now()).total_seconds())


# -- resigning ---------------------------------------------------------------------------------------


@transaction.atomic
def game_resign(*, game_id: int, actor: Actor) -> Game:
    """The person gives up a solo game or one against the computer: it ends as it stands. The boxes
    written keep their points and the rest stay empty (the turn in play was never written and is
    dropped), so the total is what was really scored; the seat is marked `left_at` (shown as resigned
    in the history and the review) and ranks after the computer players. Games against friends are
    left instead (`dicegame.live.rooms.seat_leave`): the table plays on there."""
    game = _locked_for_actor(game_id, actor)
    if game.kind == Game.Kind.FRIENDS:
        raise GameActionError(_("In a game against friends, leave the game instead."), status=400)
    if game.kind not in (Game.Kind.SOLO, Game.Kind.COMPUTER):
        # A local game is several people's: one of them can't end it for all.
        raise GameActionError(_("Only a solo game or one against the computer can be resigned."), status=400)
    _check_active(game)
    players = list(game.players.order_by("seat"))
    now = timezone.now()
    for player in players:
        if actor.owns(player):
            player.left_at = now
            player.save(update_fields=["left_at"])
    Turn.objects.filter(game=game, completed_at__isnull=True).delete()
    game._turn_in_play = None
    _finish(game, players)
    _bump(game)
    return game
