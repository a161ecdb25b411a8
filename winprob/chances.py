"""Every seat's chance of winning a game in play, from the rows in memory (no query).

The pure computation is `dicegame.strategy.winprob`; here a game's seats become positions, and two
caches keep the cost of a change small: a seat's distribution of final totals is kept by its position
(in the child process that works them out: a change moves one seat, the others' futures are not played
again), and the chances of a whole position are kept in the shared cache under the position alone, so
one result serves every game, process and viewer that reaches it (a hold or a choice of box changes the
version but not the position: the answer is at hand). The futures' seed is fixed (BAR_SEED), so a
position has one answer wherever it is worked out.

Only `winprob.live` works chances out, on its worker thread (in the niced child) or, in plain
synchronous code, at once; a request reads the cache.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass

from django.core.cache import cache
from django.db import transaction

from dicegame.models import Game, Player, Turn
from dicegame.rules.turn import MAX_ROLLS
from dicegame.strategy import Strategy
from dicegame.strategy.winprob import DEFAULT_SAMPLES, SeatPosition, win_chances

from . import process
from .models import WinBarChoice

CACHE_SECONDS = 6 * 3600
SEATS_COLOURS = 4
# The futures' seed of every position: a position's figures are the same in every game that reaches it.
BAR_SEED = 0


class _Lru(OrderedDict):
    """A small thread-safe LRU (the page views and the push worker share it)."""

    def __init__(self, size: int):
        self.size = size
        self.lock = threading.Lock()
        super().__init__()

    def get(self, key, default=None):
        with self.lock:
            if key not in self:
                return default
            self.move_to_end(key)
            return self[key]

    def __setitem__(self, key, value):
        with self.lock:
            super().__setitem__(key, value)
            if len(self) > self.size:
                self.popitem(last=False)


# A seat's distribution of final totals is at most ~13 KB: 512 of them stay well under 10 MB.
_distributions = _Lru(512)


def switch_bar(player: Player, on: bool) -> None:
    """The seat's player switches the bar on or off for themselves; the game notes whether any seat
    still wants it (`Game.win_bar_wanted`). Idempotent, and under the game's lock, so concurrent toggles
    (two tabs, a double click, two seats) leave the note true to the rows: without it two get_or_create
    calls both missed the row and the second insert broke the unique seat (a 500)."""
    with transaction.atomic():
        Game.objects.select_for_update().filter(pk=player.game_id).values_list("pk", flat=True).first()
        if on:
            WinBarChoice.objects.bulk_create([WinBarChoice(player=player)], ignore_conflicts=True)
        else:
            WinBarChoice.objects.filter(player=player).delete()
        wanted = WinBarChoice.objects.filter(player__game_id=player.game_id).exists()
        Game.objects.filter(pk=player.game_id).update(win_bar_wanted=wanted)


def has_bar(game: Game, players: list[Player]) -> bool:
    """A game whose screens may show the bar: in play, 2-4 seats, not on one device (whose screen is
    every person's)."""
    return game.is_active and 2 <= len(players) <= 4 and game.kind in (Game.Kind.FRIENDS, Game.Kind.COMPUTER)


def positions(players: list[Player], turn: Turn | None) -> list[SeatPosition]:
    out = []
    for p in players:
        dice, left = None, 0
        if turn is not None and turn.player_id == p.pk and turn.dice and turn.completed_at is None:
            dice, left = tuple(turn.dice), MAX_ROLLS - turn.rolls_used
        out.append(SeatPosition(p.sheet, dice, left, out=p.left_at is not None))
    return out


def position_key(seats: list[SeatPosition]) -> str:
    """The shared cache's key of a position (every seat's sheet, the dice showing and the rolls left):
    the same in every game."""
    text = repr([(s.sheet.to_dict(), s.dice and tuple(sorted(s.dice)), s.rolls_left, s.out) for s in seats])
    return f"winprob:v2:{hashlib.sha256(text.encode()).hexdigest()[:32]}"


def cached_chances(players: list[Player], turn: Turn | None) -> list[float] | None:
    """The position's chances if worked out already (by any process, for any game); else None."""
    return cache.get(position_key(positions(players, turn)))


def compute_chances(seats: list[SeatPosition], *, in_child: bool) -> list[float]:
    """Work out a position's chances (seat order) and keep them in the shared cache. `in_child`: in the
    niced child process (winprob.process), as a server's worker thread does."""
    if in_child and process.available():
        chances = process.chances(seats, DEFAULT_SAMPLES, BAR_SEED)
    else:
        chances = win_chances(
            Strategy.shared().values, seats, n=DEFAULT_SAMPLES, seed=BAR_SEED, cache=_distributions
        )
    cache.set(position_key(seats), chances, CACHE_SECONDS)
    return chances


@dataclass(frozen=True)
class BarSeat:
    name: str
    chance: float
    colour: int  # 0-3: the seat's colour in the stylesheet (win-seat-N)
    x: int  # where its segment starts and how wide it is, in thousandths of the bar
    width: int

    @property
    def percent(self) -> int:
        return round(self.chance * 100)


def bar_seats(players: list[Player], chances: list[float]) -> list[BarSeat]:
    out, x = [], 0
    for p, c in zip(players, chances, strict=True):
        end = round(min(1.0, x / 1000 + c) * 1000) if p is not players[-1] else 1000
        out.append(BarSeat(p.display_name, c, p.seat % SEATS_COLOURS, x, end - x))
        x = end
    return out


def page_bar(game: Game, players: list[Player], turn: Turn | None, mine: Player | None) -> dict | None:
    """The bar as the game page draws it for this viewer (None: no bar). A spectator sees it, a seat may
    switch it on, in a game that is not rated (nobody sees a rated game's chances while it is played:
    a player would watch their own through the invitation link in another browser; its review shows
    them afterwards). The chances come from the cache when they are there; otherwise the region asks
    for them when it loads (winprob.views.bar), so the page is not held up."""
    if not has_bar(game, players) or game.rated:
        return None
    if mine is None:
        shown, on, can_toggle = True, False, False
    else:
        on = WinBarChoice.objects.filter(player=mine).exists()
        shown, can_toggle = on, True
    seats = []
    if shown:
        chances = cached_chances(players, turn)
        seats = bar_seats(players, chances) if chances is not None else []
    return {"shown": shown, "on": on, "can_toggle": can_toggle, "seats": seats}
