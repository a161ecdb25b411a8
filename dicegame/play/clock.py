"""What the server's clock makes due in a game, applied whether or not any browser is open: an overdue
auto-commit, a turn timer run out (the computer plays the turn), the computer players' paced moves, and
a game's closing time (it ends as it stands).

Any number of processes may settle a game at once: each change takes the game's row lock, so it
happens exactly once. The clock's loop (`sweeper`) settles every game with something due; every action
and page view settles its own game first.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from core import metrics
from dicegame.models import Game, Turn
from dicegame.play.finish import end_as_it_stands
from dicegame.play.kernel import bot_pace, bump, current_turn
from dicegame.play.moves import choose, roll, write
from dicegame.rules.scoring import Box
from dicegame.rules.turn import IDLE_END_SECONDS, MISSED_MOVES_FORFEIT
from dicegame.strategy.computer import auto_commit_box, computer_player, next_step


def settle_locked(game: Game, *, hurry: bool = False) -> int:
    """Apply what the server's clock says is due (the caller holds the game's row lock): a closing time
    passed, an overdue auto-commit, a turn timer run out, and the computer's moves, one visible step per
    pace. With `hurry`, the computer plays on at once until a person's turn. Returns how many changes
    were made."""
    now = timezone.now()
    closes_at = game.closes_at
    if not (game.is_active and closes_at is not None and now >= closes_at):
        return _apply_due(game, now, hurry=hurry)
    # What fell due before the closing time comes first, as the clock would have applied it then (a
    # clock that was down catches up in order); then the game ends as it stands. (A game on shared dice:
    # its day or its round is over and its seed is public now. A correspondence game: nobody has moved in
    # it for too long.)
    changes = _apply_due(game, closes_at, hurry=False, in_order=True)
    if game.is_active:
        # Every person still at the table is marked as left at the closing time, as a resignation would.
        players = list(game.seats or game.players.order_by("seat"))
        leaving = [p for p in players if not p.is_bot and p.left_at is None]
        end_as_it_stands(game, players, leaving=leaving, at=closes_at)
        changes += 1
    return changes


def _apply_due(game: Game, now, *, hurry: bool, in_order: bool = False) -> int:
    """The turns' due work up to `now`: the computer's moves, an overdue auto-commit, a time run out.
    `in_order`: each at the time it fell due, so the next turn's time runs from there (catching up to a
    closing time); otherwise a time run out is applied as of `now`, and the next player gets their
    whole time from when the clock applied it (a server that was down cost nobody their turn)."""
    changes = 0
    while game.is_active:
        turn = current_turn(game)
        if turn.player.computer_plays:
            due = turn.next_step_at or now
            if due > now and not hurry:
                break
            _bot_step(game, turn, min(due, now))
        elif turn.auto_commit_at is not None and turn.auto_commit_at <= now:
            at = turn.auto_commit_at if in_order else None
            write(game, turn, auto_commit_box(turn.player.sheet, tuple(turn.dice)), auto=True, at=at)
        elif turn.deadline_at is not None and turn.deadline_at <= now:
            _time_out(game, turn, turn.deadline_at if in_order else now)
        else:
            break
        changes += 1
    return changes


def _time_out(game: Game, turn: Turn, now) -> None:
    """The turn's time ran out: the computer plays this turn optimally. In a live game a second miss in
    a row hands the seat to the computer until its player takes it back; in a correspondence game each
    move comes back to its player, and MISSED_MOVES_FORFEIT misses in a row forfeit the seat, as leaving
    does (the computer plays on for it)."""
    player = turn.player
    player.missed_turns += 1
    if game.is_correspondence:
        if player.missed_turns >= MISSED_MOVES_FORFEIT:
            player.left_at = now
            player.stand_in = True
            game.left_seat = player  # told on every screen (dicegame.screen.moments)
    else:
        player.stand_in = player.missed_turns >= 2
    player.save(update_fields=["missed_turns", "stand_in", "left_at"])
    turn.stand_in = True
    turn.deadline_at = None
    turn.auto_commit_at = None
    turn.save(update_fields=["stand_in", "deadline_at", "auto_commit_at"])
    while not turn.is_complete:
        _bot_step(game, turn, now)


def stand_in_strength(game: Game) -> str:
    """Who plays a person's seat while they are away: in a casual game the computer that plays to win
    (it plays for the person, and finishing first is what the table plays for); in a rated, daily or
    tournament game the expected-total one, as ever (the person's own result must not gain from it)."""
    if game.rated or game.daily_date is not None or game.on_shared_dice or game.kind == Game.Kind.SOLO:
        return "hard"
    return "winner"


def _bot_step(game: Game, t: Turn, due) -> None:
    """One move of a computer player. The next one is due a pace after this one was, so a game
    nobody watched catches up at once when it is next touched."""
    strength = t.player.bot_strength or stand_in_strength(game)
    opponents = ()
    if strength == "winner":
        players = game.seats if game.seats is not None else list(game.players.order_by("seat"))
        opponents = tuple(p.sheet for p in players if p.pk != t.player_id and p.left_at is None)
    step = next_step(
        computer_player(strength),
        t.player.sheet,
        tuple(t.dice) if t.dice else None,
        list(t.held),
        t.rolls_used,
        Box[t.chosen_box] if t.chosen_box else None,
        opponents,
    )
    if step.kind == "confirm":
        write(game, t, Box[t.chosen_box], auto=False, at=due)
        return
    if step.kind == "roll":
        roll(game, t)
    elif step.kind == "hold":
        t.held = list(step.held)
        t.save(update_fields=["held"])
    else:
        choose(t, step.box)
    t.next_step_at = due + bot_pace(game)
    t.save(update_fields=["next_step_at"])


def game_settle(*, game_id: int, written: list | None = None) -> bool:
    """Apply whatever the server's clock says is due in this game. Safe to call at any time and from
    any number of processes: the row lock makes each change happen once. `written` (a list), if given,
    receives the turns written (see `moves.write`), for the answer's moments."""
    with transaction.atomic():
        try:
            game = Game.objects.select_for_update().get(pk=game_id)
        except Game.DoesNotExist:
            return False
        if not settle_locked(game):
            return False
        bump(game)
        if written is not None:
            written.extend(game.written)
        return True


def games_settle_overdue(*, game_ids=None) -> int:
    """Settle every game (or those of `game_ids`) where something is due; returns how many changed."""
    now = timezone.now()
    due = Turn.objects.filter(completed_at__isnull=True, game__status=Game.Status.ACTIVE).filter(
        Q(auto_commit_at__lte=now) | Q(next_step_at__lte=now) | Q(deadline_at__lte=now)
    )
    # Correspondence games nobody has moved in for too long, and games on shared dice (a tournament
    # round) whose window has ended, end as they stand (Game.closes_at).
    idle = Game.objects.filter(status=Game.Status.ACTIVE).filter(
        Q(pace=Game.Pace.CORRESPONDENCE, moved_at__lte=now - timedelta(seconds=IDLE_END_SECONDS))
        | Q(shared_until__lte=now)
    )
    if game_ids is not None:
        due, idle = due.filter(game_id__in=game_ids), idle.filter(pk__in=game_ids)
    rows = list(due.values_list("game_id", "auto_commit_at", "next_step_at", "deadline_at"))
    if game_ids is None:
        # How late the oldest due work is, in the same query (for the operators' metrics).
        overdue = [t for row in rows for t in row[1:] if t is not None and t <= now]
        metrics.CLOCK_LAG.set((now - min(overdue)).total_seconds() if overdue else 0.0)
    game_ids = {row[0] for row in rows} | set(idle.values_list("pk", flat=True))
    return sum(game_settle(game_id=game_id) for game_id in game_ids)


def turn_auto_commit_remaining(turn: Turn) -> float | None:
    """Seconds left before the auto-commit, or None when no countdown runs."""
    if turn.auto_commit_at is None:
        return None
    return max(0.0, (turn.auto_commit_at - timezone.now()).total_seconds())
