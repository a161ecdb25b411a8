"""The turn kernel: what every change to a game goes through, and the small API the rest of play (and
the apps above it: rooms, presence, the daily) uses to change one.

- `lock_game`, `lock_for_actor`, `lock_and_bump`, `lock_bump_and_read`: take the game's row lock (and
  with it the right to change it); a game the actor has no seat in answers as if it did not exist.
- `check_active`: refuse anything but a game in play.
- `current_turn`: the turn in play, read once per locked game.
- `start_turn`: the next turn, with its clocks (the computer's pace, the turn timer).
- `bump`: count a change and tell who wants to know (`events.GameChanged`), once it is saved.

The rules (`dicegame.rules`) decide *what* is legal; play decides *who* and *when*.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from operator import attrgetter

from django.conf import settings
from django.db import connection
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Profile
from core.statements import LockAndRead, UpdateReturning
from dicegame import events
from dicegame.actors import Actor
from dicegame.errors import GameActionError, GameNotFound
from dicegame.models import Game, Player, Turn
from dicegame.rules.turn import AUTO_COMMIT_MAX_SECONDS, FAST_COMPUTER_SHARE, RATED_TURN_SECONDS


# The statements of every action that the ORM cannot express (core.statements).
# A person's action: a new version, and the time a person last moved (a correspondence game that nobody
# moves in for long ends as it stands: Game.closes_at).
def _bump_sql(q) -> str:
    return f"{q('version')} = {q('version')} + 1, {q('updated_at')} = %s, {q('moved_at')} = %s"


_LOCK_AND_BUMP = UpdateReturning(Game, _bump_sql)
# On PostgreSQL, the same with the seats and the turn in play, in one statement (one round trip, not
# three: under load each round trip also waits its turn for the interpreter lock).
_LOCK_BUMP_AND_READ = LockAndRead(
    Game,
    _bump_sql,
    "version",
    many=(Player, "game_id", "seat"),
    first=(Turn, "game_id", lambda c: f"{c('completed_at')} IS NULL", "number"),
)


def lock_game(game_id: int) -> Game:
    """The game, under its row lock (the caller is inside a transaction)."""
    try:
        return Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        raise GameNotFound(_("There is no such game.")) from None


def lock_for_actor(game_id: int, actor: Actor) -> Game:
    """The game under its row lock, if the actor has a seat in it; else "no such game"."""
    game = lock_game(game_id)
    if not any(actor.owns(p) for p in game.players.all()):
        raise GameNotFound(_("There is no such game."))
    return game


def lock_and_bump(game_id: int) -> Game:
    """Take the game's row lock, read it and count a person's change, in one statement. A change that is
    refused rolls back with its transaction, the new version with it."""
    now = timezone.now()
    game = _LOCK_AND_BUMP.fetch(now, now, game_id)
    if game is None:
        raise GameNotFound(_("There is no such game."))
    return game


def lock_bump_and_read(game_id: int) -> Game:
    """`lock_and_bump`, with the game's seats in turn order (`game.seats`) and its turn in play
    (`game.turn_in_play`, its player one of the seats) read too: on PostgreSQL in the same statement,
    read again apart if another transaction changed the game while this one waited for the lock."""
    if connection.vendor != "postgresql":
        game = lock_and_bump(game_id)
        game.seats = seats(game_id)
        return game
    now = timezone.now()
    found = _LOCK_BUMP_AND_READ.fetch(game_id, now, now)
    if found is None:
        raise GameNotFound(_("There is no such game."))
    game, players, turn, stale = found
    game.seats = players
    if stale:
        game.seats = seats(game_id)  # current_turn reads the turn again
    elif turn is not None:
        turn.player = next(p for p in players if p.pk == turn.player_id)
        game.turn_in_play = turn
    return game


def seats(game_id: int) -> list[Player]:
    """The game's seats in turn order (one query). Sorted here, not by the query: the ORM compiles a
    query on every run, and an ORDER BY was a third of this one's CPU (a seat or two to sort)."""
    return sorted(Player.objects.filter(game_id=game_id).order_by(), key=attrgetter("seat"))


def current_turn(game: Game) -> Turn | None:
    """The turn in play, read once per locked game (writing a turn or starting one updates it)."""
    cached = game.turn_in_play
    if cached is not None and cached.completed_at is None:
        return cached
    players = game.seats
    if players is not None:
        # (Never more than one in play; were there two, the first. Chosen here, as the seats are sorted.)
        in_play = Turn.objects.filter(game_id=game.pk, completed_at__isnull=True).order_by()
        turn = min(in_play, key=attrgetter("number"), default=None)
        if turn is not None:
            # The same Player objects as the game's seats, so a score written is seen by both.
            turn.player = next(p for p in players if p.pk == turn.player_id)
    else:
        turns = Turn.objects.filter(game=game, completed_at__isnull=True).order_by("number")
        turn = turns.select_related("player").first()
    game.turn_in_play = turn
    return turn


def check_active(game: Game) -> None:
    if game.is_finished:
        raise GameActionError(_("This game is over."))
    if game.is_open:
        raise GameActionError(_("This game has not started yet."))
    if game.status == Game.Status.EXPIRED:
        raise GameActionError(_("This game has expired."))
    if game.status == Game.Status.CANCELLED:
        raise GameActionError(_("The host cancelled this room."), status=410)


def bump(game: Game, change: str | None = None) -> None:
    """Record a change: a new version, told to whoever follows the game once it is committed.
    `change` names a small change (`events.HOLDS`, `CHOICE`, `PRESENCE`) that screens may redraw in
    part; None: anything."""
    game.version += 1
    game.save(update_fields=["version", "status", "finished_at", "updated_at"])
    announce(game, change)


def announce(game: Game, change: str | None) -> None:
    """Tell the subscribers (the live pushes, the winning chances) that the game changed."""
    events.publish(events.GameChanged(game, change))


def bot_pace(game: Game) -> timedelta:
    """How long each move of a computer player stays on screen before the next one: shorter in a game
    whose person chose the fast pace (Game.fast_computer)."""
    seconds = settings.PENTA_BOT_STEP_SECONDS
    return timedelta(seconds=seconds * FAST_COMPUTER_SHARE if game.fast_computer else seconds)


@dataclass(frozen=True)
class PlaySettings:
    """A person's settings for play: the seconds to choose a box after the last roll (None: the site's
    default; 0: off where a game allows it), and the computer players' fast pace."""

    auto_commit: int | None = None
    fast_computer: bool = False


def person_play_settings(actor: Actor) -> PlaySettings:
    """The actor's play settings: an account's from its Profile, a guest's from their session (which
    `actor_from_request` put on the actor)."""
    if actor.user_id is None:
        return PlaySettings(actor.auto_commit, actor.fast_computer)
    return user_play_settings(actor.user_id)


def user_play_settings(user_id: int) -> PlaySettings:
    row = Profile.objects.filter(user_id=user_id).values_list("auto_commit_seconds", "fast_computer").first()
    return PlaySettings(*row) if row else PlaySettings()


def auto_commit_off_allowed(game: Game) -> bool:
    """Only where nobody waits for the turn and nothing is at stake may the auto-commit be off: a solo
    game or one against the computer, not rated, not on shared dice (the daily, a tournament round)."""
    return game.kind in (Game.Kind.SOLO, Game.Kind.COMPUTER) and not game.rated and not game.on_shared_dice


def seat_auto_commit(game: Game, wanted: int | None) -> int | None:
    """A seat's time to choose a box after the last roll, from its person's setting (`wanted`) as far as
    the game allows: off becomes AUTO_COMMIT_MAX_SECONDS where it is not allowed."""
    if wanted == 0 and not auto_commit_off_allowed(game):
        return AUTO_COMMIT_MAX_SECONDS
    return wanted


def start_turn(game: Game, player: Player, *, number: int, round_: int, at) -> Turn:
    """The turn `number` for `player`, with its clocks: the computer's first move a pace after `at`, or
    the person's turn timer."""
    game.turn_in_play = None
    turn = Turn.objects.create(
        game=game,
        player=player,
        number=number,
        round=round_,
        held=[False] * 5,
        stand_in=player.stand_in,
        next_step_at=at + bot_pace(game) if player.computer_plays else None,
        deadline_at=None if player.computer_plays else turn_deadline(game, player, at),
    )
    turn.player = player
    game.turn_in_play = turn
    events.publish(events.TurnStarted(game, turn))
    return turn


def turn_deadline(game: Game, player: Player, at):
    """When a person's turn that starts at `at` runs out: a correspondence game's move time; the turn
    timer of a live game against friends (a rated one always has one: RATED_TURN_SECONDS if it was made
    without); a player with no open screen gets a grace period even when the timer is off, so an absent
    player never stalls the table."""
    if game.kind != Game.Kind.FRIENDS or player.challenged:
        # (A seat kept for a person who has not accepted their challenge yet has no clock.)
        return None
    if game.is_correspondence:
        return at + timedelta(seconds=game.move_seconds)
    if game.turn_seconds or game.rated:
        return at + timedelta(seconds=game.turn_seconds or RATED_TURN_SECONDS)
    if not player.connected:
        return at + timedelta(seconds=settings.PENTA_ABSENT_GRACE_SECONDS)
    return None
