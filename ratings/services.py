"""Rating a finished game: on `events.GameFinished`, inside the transaction that holds the
game's row lock, so a game's ratings change together with its end or not at all.

The rule for people who were not there (`rating_rule` says it on the site): computer seats never count.
A person forfeits when they left the game (resigned, or the computer still kept their seat at the end)
or when the computer played more than STAND_IN_TURN_LIMIT of their turns: the game is then a loss
against every person who did not forfeit, whatever the totals, and two people who both forfeited have
no result between them. Everyone else scores 1, 0.5 or 0 against each other person by totals.
"""

from __future__ import annotations

from collections import Counter

from django.db.models import Count
from django.utils import timezone
from django.utils.translation import gettext as _

from dicegame import events
from dicegame.models import Game, Player, Turn
from dicegame.records import STAND_IN_TURN_LIMIT, seat_left
from dicegame.rules import glicko2
from ratings.models import PROVISIONAL_RD, PlayerRating, RatingChange


def pairwise_results(people: list[Player], forfeits: set[int]) -> dict[int, list[tuple[int, float]]]:
    """Each person's (opponent's user id, score) pairs; `forfeits` holds the user ids that forfeited."""
    results: dict[int, list[tuple[int, float]]] = {p.user_id: [] for p in people}
    for p in people:
        for q in people:
            if q.user_id == p.user_id:
                continue
            if p.user_id in forfeits and q.user_id in forfeits:
                continue  # both gone: no result between them
            if p.user_id in forfeits:
                score = 0.0
            elif q.user_id in forfeits:
                score = 1.0
            else:
                score = 1.0 if p.total > q.total else 0.5 if p.total == q.total else 0.0
            results[p.user_id].append((q.user_id, score))
    return results


def on_game_finished(event: events.GameFinished) -> None:
    game_rate(event.game, event.players)


def game_rate(game: Game, players: list[Player]) -> list[RatingChange]:
    """Apply a finished rated game to its people's ratings, once. The caller holds the game's row lock
    (so no second finish of this game can interleave); the rating rows are locked in user-id order, so
    two games finishing at once that share people wait for each other instead of deadlocking, and the
    later one rates against the earlier one's results."""
    if not game.rated or game.kind != Game.Kind.FRIENDS:
        return []
    people = [p for p in players if p.user_id is not None and not p.is_bot]
    if len(people) < 2 or RatingChange.objects.filter(game=game).exists():
        return []
    stand_ins = Counter(
        dict(
            Turn.objects.filter(game=game, stand_in=True)
            .values("player_id")
            .annotate(n=Count("pk"))
            .values_list("player_id", "n")
        )
    )
    forfeits = {p.user_id for p in people if seat_left(p) or stand_ins[p.pk] > STAND_IN_TURN_LIMIT}
    results = pairwise_results(people, forfeits)
    user_ids = sorted(uid for uid, r in results.items() if r)
    if not user_ids:
        return []
    PlayerRating.objects.bulk_create([PlayerRating(user_id=uid) for uid in user_ids], ignore_conflicts=True)
    rows = {
        r.user_id: r
        for r in PlayerRating.objects.select_for_update().filter(user_id__in=user_ids).order_by("user_id")
    }
    now = timezone.now()
    before = {uid: rows[uid].current(now) for uid in user_ids}  # widened by any idle weeks
    changes = []
    for uid in user_ids:
        period = [(before[opponent], score) for opponent, score in results[uid]]
        after = glicko2.rate(before[uid], period)
        row = rows[uid]
        changes.append(
            RatingChange(
                game=game,
                user_id=uid,
                rating_before=before[uid].rating,
                rd_before=before[uid].rd,
                rating_after=after.rating,
                rd_after=after.rd,
                volatility_after=after.volatility,
                score=sum(score for _o, score in period),
                opponents=len(period),
                forfeit=uid in forfeits,
            )
        )
        row.rating, row.rd, row.volatility = after.rating, after.rd, after.volatility
        row.games += 1
        row.updated_at = now
    # The unique (game, user) constraint: should a second path ever get here for the same game, its
    # insert fails and its transaction (with its ratings) rolls back.
    RatingChange.objects.bulk_create(changes)
    PlayerRating.objects.bulk_update(rows.values(), ["rating", "rd", "volatility", "games", "updated_at"])
    return changes


def rating_rule() -> str:
    """The rule for absent players and computer seats in plain words, shown wherever ratings are."""
    return _(
        "Rated games move the Glicko-2 ratings of the people at the table: each person scores a win, a "
        "draw or a loss against every other person by their totals. Computer players never count. A "
        "person who leaves the game, or for whom the computer plays more than %(n)d turns, forfeits: "
        "the game is a loss for them against everyone who stayed, whatever the totals, and two people "
        "who both forfeit have no result between them. A rating marked ? is provisional: it is still "
        "uncertain (deviation above %(rd)d)."
    ) % {"n": STAND_IN_TURN_LIMIT, "rd": int(PROVISIONAL_RD)}
