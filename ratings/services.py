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
And on `events.AccountMarked` the marked account's rated opponents get back what its seat cost them in
its games of the REFUND_WINDOW before the mark: each game rated again without the marked seat, the
difference where it is a gain, once (RatingRefund).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import timedelta

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Profile
from accounts.selectors import blocks_among
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
# A difference smaller than this is arithmetic, not a refund (ratings show whole points).
MIN_REFUND = 1e-6


def pairwise_results(
    people: list[Player],
    forfeits: set[int],
    aborts: frozenset[int] | set[int] = frozenset(),
    apart: frozenset[frozenset[int]] | set[frozenset[int]] = frozenset(),
) -> dict[int, list[tuple[int, float]]]:
    """Each person's (opponent's user id, score) pairs; `forfeits` holds the user ids that forfeited,
    `aborts` those of them who did so early (no result with anybody), `apart` the pairs with no result
    between them (a block: `blocked_leavers`)."""
    results: dict[int, list[tuple[int, float]]] = {p.user_id: [] for p in people}
    for p in people:
        for q in people:
            if q.user_id == p.user_id:
                continue
            if p.user_id in aborts or q.user_id in aborts:
                continue  # left before the game was a game
            if frozenset((p.user_id, q.user_id)) in apart:
                continue  # one left the other after a block: no result between them
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


def seat_results(game: Game, people: list[Player]) -> tuple[set[int], set[int], dict]:
    """The game's forfeits, aborts (user ids) and pairwise results (`pairwise_results`), by the rule
    for people who were not there, from its seats and turns."""
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
    return forfeits, aborts, pairwise_results(people, forfeits, aborts, blocked_leavers(people))


def blocked_leavers(people: list[Player]) -> set[frozenset[int]]:
    """The pairs of whom one left the game after a block between the two was made (either blocked the
    other): games in play go on after a block, and each may leave without a rating loss, so the two have
    no result between them. Against anyone else leaving is leaving."""
    blocks = blocks_among(p.user_id for p in people)
    if not blocks:
        return set()
    apart = set()
    for p in people:
        if p.left_at is None:
            continue
        for q in people:
            pair = frozenset((p.user_id, q.user_id))
            if q.user_id != p.user_id and pair in blocks and blocks[pair] <= p.left_at:
                apart.add(pair)
    return apart


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
    forfeits, aborts, results = seat_results(game, people)
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
                volatility_before=before[uid].volatility,
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


def result_weight(change: RatingChange, opponent: int) -> float:
    """How much the result against `opponent` counted in this change (its `discounts`; 1 if absent)."""
    return next((d["weight"] for d in change.discounts if d.get("opponent") == opponent), 1.0)


def volatility_before(change: RatingChange) -> float:
    if change.volatility_before is not None:
        return change.volatility_before
    # A row from before the field: the volatility only moves with a rated game, so it is the one the
    # person's previous change left (or a new rating's).
    previous = (
        RatingChange.objects.filter(user_id=change.user_id, id__lt=change.id)
        .order_by("-id")
        .values_list("volatility_after", flat=True)
        .first()
    )
    return previous if previous is not None else glicko2.Rating.volatility


def rated_without(game: Game, changes: dict[int, RatingChange], gone: set[int]) -> dict[int, float]:
    """Each person's rating after `game` had the people of `gone` not been at the table: the game's
    rating period again, from what its changes keep (each rating as it stood before the game, widened
    by any idle weeks; the results; their pair and newcomer weights), less every result against `gone`.
    `changes`: the game's changes by user id."""
    people = [p for p in game.players.all() if p.user_id is not None and not p.is_bot]
    _forfeits, _aborts, results = seat_results(game, people)
    ratings = {}
    for uid, change in changes.items():
        if uid in gone:
            continue
        period = [
            (
                glicko2.Rating(changes[opponent].rating_before, changes[opponent].rd_before),
                score,
                result_weight(change, opponent),
            )
            for opponent, score in results.get(uid, [])
            if opponent not in gone and opponent in changes
        ]
        start = glicko2.Rating(change.rating_before, change.rd_before, volatility_before(change))
        ratings[uid] = glicko2.rate(start, period).rating
    return ratings


@transaction.atomic
def refund_opponents(*, user_id: int, since=None) -> list[RatingRefund]:
    """Give the marked account's rated opponents back what its seat cost them in its games finished at
    or after `since`, but no earlier than REFUND_WINDOW before now: each game is rated again without
    the marked seats (this account's, and any other marked account's there), and each person gets the
    rating they would have had less the rating the game gave them, less what earlier markings gave back
    for it, where that is a gain: never more than they would have had had the marked accounts not
    played, and nothing taken from anyone who won rating from them. Once per marked account and game
    (RatingRefund), added to their rating as it is now (the deviation and the history stay). The marked
    account's own rating is left as it is: the boards hide it. Runs in the marking transaction (its
    savepoint, if the caller has one)."""
    now = timezone.now()
    since = max(since, now - REFUND_WINDOW) if since is not None else now - REFUND_WINDOW
    mine = RatingChange.objects.filter(user_id=user_id, game__finished_at__gte=since)
    game_ids = list(mine.values_list("game_id", flat=True))
    theirs = RatingChange.objects.filter(game_id__in=game_ids).exclude(user_id=user_id)
    candidates = sorted(set(theirs.values_list("user_id", flat=True)))
    if not candidates:
        return []
    # The rows of the people to refund, locked in user-id order (as game_rate locks them): a second
    # marking of the same account, or of another account at the same games, waits here, and reads the
    # refunds and the standings again below, once this one's are committed.
    rows = {
        r.user_id: r
        for r in PlayerRating.objects.select_for_update().filter(user_id__in=candidates).order_by("user_id")
    }
    given = defaultdict(float)  # (game, person): what markings gave back for it already
    done = set()  # (game, person) this account's marking already refunded
    earlier = RatingRefund.objects.filter(game_id__in=game_ids)
    for game_id, uid, points, by in earlier.values_list("game_id", "user_id", "points", "marked_id"):
        given[game_id, uid] += points
        if by == user_id:
            done.add((game_id, uid))
    marked = {user_id} | set(
        Profile.objects.filter(user_id__in=candidates, standing=Profile.Standing.MARKED).values_list(
            "user_id", flat=True
        )
    )
    changes = defaultdict(dict)
    for change in RatingChange.objects.filter(game_id__in=game_ids):
        changes[change.game_id][change.user_id] = change
    refunds = []
    games = Game.objects.filter(pk__in=game_ids).prefetch_related("players").order_by("finished_at", "pk")
    for game in games:
        of_game = changes[game.pk]
        owed = [u for u in sorted(of_game) if u in rows and u not in marked and (game.pk, u) not in done]
        if not owed:
            continue
        without = rated_without(game, of_game, gone=marked & of_game.keys())
        for uid in owed:
            points = without[uid] - of_game[uid].rating_after - given[game.pk, uid]
            if points > MIN_REFUND:
                refunds.append(RatingRefund(game=game, user_id=uid, points=points, marked_id=user_id))
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
        + _(
            "After one of two people blocks the other, either may leave a game they are playing together "
            "without a loss against the other: the two have no result between them."
        )
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
        "for unfair play leaves every rating list, and each of its rated games of the last %(days)d days "
        "before the mark is rated again without it: whoever it cost rating gets the difference back, and "
        "no more."
    ) % {
        "turns": EARLY_FORFEIT_TURNS,
        "pair": PAIR_GAMES_A_DAY,
        "new": NEWCOMER_GAMES,
        "percent": round(NEWCOMER_WEIGHT * 100),
        "days": REFUND_WINDOW.days,
    }
