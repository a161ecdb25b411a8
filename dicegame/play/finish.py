"""The end of a game: its ranks and status, and `events.GameFinished` for what follows from it (the
ratings move in this transaction; the review's analysis and the puzzles after the commit)."""

from __future__ import annotations

from collections.abc import Iterable

from django.utils import timezone

from dicegame import events
from dicegame.models import Game, Player, Turn


def finish(game: Game, players: list[Player], *, at=None) -> None:
    """Rank the seats and mark the game finished, now or `at` (the caller holds its row lock and saves
    it)."""
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
    game.finished_at = at or timezone.now()
    events.publish(events.GameFinished(game, players))


def end_as_it_stands(game: Game, players: list[Player], *, leaving: Iterable[Player], at) -> None:
    """End the game now: the boxes written keep their points, the rest stay empty (the turn in play
    was never written and is dropped), and the seats `leaving` are marked as left at `at` (shown as
    resigned; they rank after the others). It finished at `at`: a clock that was down when a game's
    closing time passed ends it as of that time."""
    for player in leaving:
        player.left_at = at
        player.save(update_fields=["left_at"])
    Turn.objects.filter(game=game, completed_at__isnull=True).delete()
    game.turn_in_play = None
    finish(game, players, at=at)
