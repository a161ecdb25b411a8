"""Rating a finished game: on `events.GameFinished`, inside the transaction that holds the
game's row lock, so a game's ratings change together with its end or not at all.

The rule for people who were not there (`rating_rule` says it on the site): computer seats never count.
A person forfeits when they left the game (resigned, or the computer still kept their seat at the end)
or when the computer played more than STAND_IN_TURN_LIMIT of their turns: the game is then a loss
against every person who did not forfeit, whatever the totals, and two people who both forfeited have
no result between them. Everyone else scores 1, 0.5 or 0 against each other person by totals.

Fair play (`fair_play_rule` says it): results that tell little about strength count for less, because
they are how one account feeds another (sock puppets, a friend who always loses on purpose).
- A forfeit before EARLY_FORFEIT_TURNS of one's own turns is an abort: no result with anybody.
- The same two accounts: full weight for their first PAIR_GAMES_A_DAY rated games in 24 hours, then
  half of the game before each time.
- A result against a newcomer (fewer than NEWCOMER_GAMES rated games) moves the other person's rating
  with NEWCOMER_WEIGHT; the weights multiply.
And on `events.AccountMarked` the marked account's rated opponents get back what they lost to it in the
REFUND_WINDOW before the mark, once (RatingRefund).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import timedelta

from django.db import transaction
from django.db.models import Count, Exists, F, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from core import versions
from dicegame import events
from dicegame.models import Game, Player, Turn
from dicegame.records import STAND_IN_TURN_LIMIT, seat_left
from ratings import glicko2
from ratings.models import PROVISIONAL_RD, PlayerRating, RatingChange, RatingRefund

# A person who forfeits having played fewer than this many of their own turns (the computer played the
# rest) aborted the game: a fresh account that leaves at once must hand nobody a win. Three of thirteen:
# enough that leaving is a choice made in a game played, few enough that two turns' totals say little, so
# an abort rarely saves a loser anything.
EARLY_FORFEIT_TURNS = 3
# The same two accounts: the first three rated games between them in 24 hours count in full (an evening
# of rematches between friends), each further one half of the one before (0.5, 0.25, ...), so farming
# one opponent all day adds up to at most one more game's worth.
PAIR_GAMES_A_DAY = 3
PAIR_WINDOW = timedelta(hours=24)
# A result against an account with fewer than five rated games moves the other person's rating at a
# quarter: a fresh account is the cheapest thing to lose on purpose. The newcomer's own rating moves in
# full against a settled player; two newcomers move each other at a quarter (a fresh main account
# feeding on fresh puppets is the attack found), so a group of friends who start together settle a
# little slower.
NEWCOMER_GAMES = 5
NEWCOMER_WEIGHT = 0.25
# A mark refunds the marked account's rated opponents for the games of the last 30 days before it,
# whatever earlier `since` the marking asks for (lichess gives back its last 30 wins within 3 days;
# here a friends' game is rarer, and a month of games is what a review looks at).
REFUND_WINDOW = timedelta(days=30)


def pairwise_results(
    people: list[Player], forfeits: set[int], aborts: frozenset[int] | set[int] = frozenset()
) -> dict[int, list[tuple[int, float]]]:
    """Each person's (opponent's user id, score) pairs; `forfeits` holds the user ids that forfeited,
    `aborts` those of them who did so early (no result with anybody)."""
    results: dict[int, list[tuple[int, float]]] = {p.user_id: [] for p in people}
    for p in people:
        for q in people:
            if q.user_id == p.user_id:
                continue
            if p.user_id in aborts or q.user_id in aborts:
                continue  # left before the game was a game
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


def pair_weight(earlier_games: int) -> float:
    """The weight of a result between two accounts that already had `earlier_games` rated games
    together in the PAIR_WINDOW before this one."""
    return 0.5 ** max(0, earlier_games - PAIR_GAMES_A_DAY + 1)


def _pair_games_before(game: Game, user_ids: list[int], finished_at) -> Counter[frozenset[int]]:
    """How many rated games each two of `user_ids` had together (both ratings moved) in the 24 hours
    before `finished_at`. Read under the rating rows' locks: a game of the same two finishing at the
    same moment was rated first and is counted, or waits and counts this one."""
    start = finished_at - PAIR_WINDOW
    seats = defaultdict(set)
    # A game is rated when it finishes, so created_at >= finished_at: the first filter loses nothing
    # and lets the (user, created_at) index find the day's rows of a person with thousands of games.
    for game_id, user_id in (
        RatingChange.objects.filter(user_id__in=user_ids, created_at__gte=start, game__finished_at__gte=start)
        .exclude(game=game)
        .values_list("game_id", "user_id")
    ):
        seats[game_id].add(user_id)
    counts: Counter[frozenset[int]] = Counter()
    for together in seats.values():
        ordered = sorted(together)
        for i, a in enumerate(ordered):
            for b in ordered[i + 1 :]:
                counts[frozenset((a, b))] += 1
    return counts


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
    counts = {
        player_id: (stand_in, own)
        for player_id, stand_in, own in Turn.objects.filter(game=game)
        .values("player_id")
        .annotate(
            stand_in_turns=Count("pk", filter=Q(stand_in=True)),
            own_turns=Count("pk", filter=Q(stand_in=False, completed_at__isnull=False)),
        )
        .values_list("player_id", "stand_in_turns", "own_turns")
    }
    stand_ins = {p.pk: counts.get(p.pk, (0, 0))[0] for p in people}
    own_turns = {p.pk: counts.get(p.pk, (0, 0))[1] for p in people}
    forfeits = {p.user_id for p in people if seat_left(p) or stand_ins[p.pk] > STAND_IN_TURN_LIMIT}
    aborts = {p.user_id for p in people if p.user_id in forfeits and own_turns[p.pk] < EARLY_FORFEIT_TURNS}
    results = pairwise_results(people, forfeits, aborts)
    user_ids = sorted(uid for uid, r in results.items() if r)
    if not user_ids:
        return []
    PlayerRating.objects.bulk_create([PlayerRating(user_id=uid) for uid in user_ids], ignore_conflicts=True)
    rows = {
        r.user_id: r
        for r in PlayerRating.objects.select_for_update().filter(user_id__in=user_ids).order_by("user_id")
    }
    now = timezone.now()
    pairs = _pair_games_before(game, user_ids, game.finished_at or now)
    before = {uid: rows[uid].current(now) for uid in user_ids}  # widened by any idle weeks
    changes = []
    for uid in user_ids:
        period, discounts = [], []
        for opponent, score in results[uid]:
            earlier = pairs[frozenset((uid, opponent))]
            newcomer = rows[opponent].games < NEWCOMER_GAMES
            weight = pair_weight(earlier) * (NEWCOMER_WEIGHT if newcomer else 1.0)
            period.append((before[opponent], score, weight))
            if weight < 1.0:
                discounts.append(
                    {"opponent": opponent, "weight": weight}
                    | ({"pair_game": earlier + 1} if earlier >= PAIR_GAMES_A_DAY else {})
                    | ({"newcomer": True} if newcomer else {})
                )
        discounts += [{"opponent": a, "weight": 0.0, "abort": True} for a in sorted(aborts) if a != uid]
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
                score=sum(score for _o, score, _w in period),
                opponents=len(period),
                forfeit=uid in forfeits,
                weight=sum(w for _o, _s, w in period) / len(period),
                discounts=discounts,
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


# -- refunds -------------------------------------------------------------------------------------------


def on_account_marked(event: events.AccountMarked) -> None:
    refund_opponents(user_id=event.user_id, since=event.since)


def _losses_to(user_id: int, since):
    """The rating changes of the marked account's rated opponents that lost rating in its games
    finished since `since`, and are not refunded yet."""
    games = RatingChange.objects.filter(user_id=user_id, game__finished_at__gte=since).values("game_id")
    refunded = RatingRefund.objects.filter(game_id=OuterRef("game_id"), user_id=OuterRef("user_id"))
    return (
        RatingChange.objects.filter(game_id__in=games, rating_after__lt=F("rating_before"))
        .exclude(user_id=user_id)
        .exclude(Exists(refunded))
        .order_by("user_id", "game_id")
    )


@transaction.atomic
def refund_opponents(*, user_id: int, since=None) -> list[RatingRefund]:
    """Give the marked account's rated opponents back what they lost in its games finished at or after
    `since`, but no earlier than REFUND_WINDOW before now: each loss once, added to their rating as it
    is now (the deviation and the history stay). The marked account's own rating is left as it is: the
    boards hide it. Runs in the marking transaction (its savepoint, if the caller has one)."""
    now = timezone.now()
    since = max(since, now - REFUND_WINDOW) if since is not None else now - REFUND_WINDOW
    candidates = sorted(set(_losses_to(user_id, since).values_list("user_id", flat=True)))
    if not candidates:
        return []
    # The rows of the people to refund, locked in user-id order (as game_rate locks them): a second
    # marking of the same account, or of another account at the same games, waits here, and reads the
    # refunds again below, once this one's are committed.
    rows = {
        r.user_id: r
        for r in PlayerRating.objects.select_for_update().filter(user_id__in=candidates).order_by("user_id")
    }
    losses = [c for c in _losses_to(user_id, since) if c.user_id in rows]
    refunds = [
        RatingRefund(
            game_id=c.game_id, user_id=c.user_id, points=c.rating_before - c.rating_after, marked_id=user_id
        )
        for c in losses
    ]
    if not refunds:
        return []
    # No unique violation can happen here: every refund of a person is written under their row's
    # lock, after reading the refunds again (PostgreSQL's READ COMMITTED: each statement sees what was
    # committed before it), so of two markings the later one finds the earlier one's refunds and skips
    # them. The constraint stays the last word: a refund written twice would fail the marking instead.
    RatingRefund.objects.bulk_create(refunds)
    for refund in refunds:
        rows[refund.user_id].rating += refund.points
    # Only the rating: a refund is not a game, so the weeks since the last game (the deviation's
    # growth, `updated_at`) stay as they were.
    refunded = sorted({r.user_id for r in refunds})
    PlayerRating.objects.bulk_update([rows[uid] for uid in refunded], ["rating"])
    versions.bump(versions.SITE, *(versions.user(uid) for uid in refunded))  # their pages, the boards
    return refunds


def rating_rule() -> str:
    """The rule for absent players and computer seats, and the fair-play rules, in plain words, shown
    wherever ratings are."""
    return (
        _(
            "Rated games move the Glicko-2 ratings of the people at the table: each person scores a win, "
            "a draw or a loss against every other person by their totals. Computer players never count. "
            "A person who leaves the game, or for whom the computer plays more than %(n)d turns, "
            "forfeits: the game is a loss for them against everyone who stayed, whatever the totals, and "
            "two people who both forfeit have no result between them. A rating marked ? is provisional: "
            "it is still uncertain (deviation above %(rd)d)."
        )
        % {"n": STAND_IN_TURN_LIMIT, "rd": int(PROVISIONAL_RD)}
        + " "
        + fair_play_rule()
    )


def fair_play_rule() -> str:
    """The rules against feeding a rating, in plain words with their numbers (for the fair-play page
    too)."""
    return _(
        "Fair play: a person who forfeits before playing %(turns)d of their own turns aborts the game: "
        "it has no result between them and anybody, and a game with no result left moves no rating. The "
        "first %(pair)d rated games between the same two people in 24 hours count in full, each further "
        "one half as much as the one before. A result against someone who has played fewer than %(new)d "
        "rated games counts for only %(percent)d%% towards the other person's rating. An account marked "
        "for unfair play leaves every rating list, and whoever lost rating in its rated games of the last "
        "%(days)d days before the mark gets those points back."
    ) % {
        "turns": EARLY_FORFEIT_TURNS,
        "pair": PAIR_GAMES_A_DAY,
        "new": NEWCOMER_GAMES,
        "percent": round(NEWCOMER_WEIGHT * 100),
        "days": REFUND_WINDOW.days,
    }
