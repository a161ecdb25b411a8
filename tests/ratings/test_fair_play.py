"""Ratings that cannot be fed: an early forfeit is an abort, the same two accounts count for less after a
few games a day, a newcomer moves a settled opponent at a quarter, and a marked account's opponents get
their losses back, once.

Every game is played through the real services (tests.support.ratings); the expected numbers come from
`ratings.glicko2.rate` with the weights the rules give.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone, translation

from dicegame import events
from dicegame.models import Game, Turn
from dicegame.play import rooms
from dicegame.records import seat_left
from ratings import glicko2
from ratings.models import PlayerRating, RatingChange, RatingRefund
from ratings.selectors import discount_notes, rating_of_user, refunds_of
from ratings.services import (
    EARLY_FORFEIT_TURNS,
    NEWCOMER_GAMES,
    NEWCOMER_WEIGHT,
    PAIR_GAMES_A_DAY,
    REFUND_WINDOW,
    rating_rule,
    refund_opponents,
)
from tests.support.clock import Clock
from tests.support.factories import UserFactory, actor, client_for
from tests.support.games import race
from tests.support.ratings import play_out, rated_room

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _computer_at_once(settings):
    settings.PENTA_BOT_STEP_SECONDS = 0


def settled(name: str, rating: float = 1500.0):
    """A person with a long, certain rating history (no newcomer)."""
    user = UserFactory(username=name)
    PlayerRating.objects.create(user=user, rating=rating, rd=60.0, volatility=0.06, games=30)
    return user


def leaves_at(user, game: Game, round_: int = 1):
    """on_turn for play_out: `user` leaves the game at their turn of round `round_` (after round_ - 1
    turns of their own)."""

    def on_turn(t):
        if t.player.user_id == user.pk and t.round >= round_ and t.player.left_at is None:
            rooms.seat_leave(game_id=game.pk, actor=actor(user))
            return True
        return False

    return on_turn


def lets_the_computer_play(user):
    """on_turn for play_out: `user` never plays; their turn timer runs out until the computer keeps the
    seat, and it plays every turn of theirs."""

    def on_turn(t):
        if t.player.user_id != user.pk:
            return False
        if not t.player.stand_in:
            Turn.objects.filter(pk=t.pk).update(deadline_at=timezone.now() - timedelta(seconds=1))
        return True

    return on_turn


def change(game: Game, user) -> RatingChange:
    return RatingChange.objects.get(game=game, user=user)


def volatility_before(ch: RatingChange) -> float:
    previous = RatingChange.objects.filter(user_id=ch.user_id, id__lt=ch.id).order_by("-id").first()
    return previous.volatility_after if previous else 0.06


def rated_as(ch: RatingChange, weight: float) -> float:
    """The rating glicko2 gives this change's person for their one result in the game, at `weight`."""
    opponent = RatingChange.objects.get(game_id=ch.game_id, user_id__in=other_people(ch))
    before = glicko2.Rating(ch.rating_before, ch.rd_before, volatility_before(ch))
    return glicko2.rate(
        before, [(glicko2.Rating(opponent.rating_before, opponent.rd_before), ch.score, weight)]
    ).rating


def other_people(ch: RatingChange) -> list[int]:
    return list(
        Game.objects.get(pk=ch.game_id).players.exclude(user_id=ch.user_id).values_list("user_id", flat=True)
    )


def move(ch: RatingChange) -> float:
    return ch.rating_after - ch.rating_before


# -- early forfeits ------------------------------------------------------------------------------------


def test_the_attack_replayed_fresh_accounts_that_leave_at_once_feed_nobody(strategy):
    farmer = UserFactory(username="farmer")
    puppets = [UserFactory(username=f"puppet{i}") for i in range(3)]
    games = []
    for i, puppet in enumerate(puppets):
        game = rated_room(farmer, [puppet])
        # Two leave at their first turn; the third lets the computer play all of theirs.
        on_turn = leaves_at(puppet, game) if i < 2 else lets_the_computer_play(puppet)
        games.append(play_out(game, [farmer, puppet], on_turn=on_turn))
    # ... and the rated rematch of the first, whose puppet leaves at once again.
    rooms.rematch_accept(game_id=games[0].pk, actor=actor(farmer))
    rematch = rooms.rematch_accept(game_id=games[0].pk, actor=actor(puppets[0]))
    assert rematch.rated
    games.append(play_out(rematch, [farmer, puppets[0]], on_turn=leaves_at(puppets[0], rematch)))

    for game in games:
        assert game.rated and game.is_finished
        # Each puppet forfeited (left, or the computer still held the seat at the end): before the
        # abort rule, every one of these was a rated win for the farmer.
        assert seat_left(game.players.get(user__username__startswith="puppet"))
    assert not RatingChange.objects.exists()
    assert not PlayerRating.objects.filter(user=farmer).exists()
    farmer.refresh_from_db()
    assert rating_of_user(farmer) is None  # still unrated: 1500, on no rating board


@pytest.mark.parametrize(
    ("leaves_in_round", "rated"),
    [(EARLY_FORFEIT_TURNS, False), (EARLY_FORFEIT_TURNS + 1, True)],
    ids=["after-2-own-turns-aborts", "after-3-own-turns-forfeits"],
)
def test_a_forfeit_after_three_own_turns_is_rated_before_it_is_an_abort(strategy, leaves_in_round, rated):
    stayer, leaver = UserFactory(username="stayer"), UserFactory(username="leaver")
    game = rated_room(stayer, [leaver])
    game = play_out(game, [stayer, leaver], on_turn=leaves_at(leaver, game, leaves_in_round))
    seat = game.players.get(user=leaver)
    own = Turn.objects.filter(player=seat, stand_in=False, completed_at__isnull=False).count()
    assert own == leaves_in_round - 1
    if not rated:
        assert not RatingChange.objects.filter(game=game).exists()
        assert not PlayerRating.objects.exists()
        return
    lost, won = change(game, leaver), change(game, stayer)
    assert lost.forfeit and lost.score == 0 and lost.opponents == 1
    assert won.score == 1 and move(won) > 0 > move(lost)


def test_an_abort_drops_only_that_persons_results(strategy):
    a, b, gone = (UserFactory(username=n) for n in ("ann", "bob", "gone"))
    game = rated_room(a, [b, gone])
    game = play_out(game, [a, b, gone], worst=[b], on_turn=leaves_at(gone, game))
    assert not RatingChange.objects.filter(game=game, user=gone).exists()
    for person in (a, b):
        ch = change(game, person)
        assert ch.opponents == 1 and not ch.forfeit
        assert {"opponent": gone.pk, "weight": 0.0, "abort": True} in ch.discounts
    assert change(game, a).score == 1.0 and change(game, b).score == 0.0


# -- the same two accounts, again and again ------------------------------------------------------------


def test_the_same_pair_counts_less_after_three_games_a_day_and_in_full_again_after_24_hours(
    strategy, monkeypatch
):
    clock = Clock(monkeypatch, timezone.now())
    a, b = settled("ann"), settled("bob")
    first = play_out(rated_room(a, [b]), [a, b], worst=[b])
    games = [first]
    for _ in range(4):
        clock.advance(minutes=20)
        games.append(play_out(rated_room(a, [b]), [a, b], worst=[b]))
    wins = [change(g, a) for g in games]
    weights = [1.0] * PAIR_GAMES_A_DAY + [0.5, 0.25]
    assert [w.weight for w in wins] == weights
    assert [change(g, b).weight for g in games] == weights
    for ch, weight in zip(wins, weights, strict=True):
        assert ch.rating_after == pytest.approx(rated_as(ch, weight), abs=1e-9)
    assert abs(move(wins[3])) < abs(move(wins[2])) and abs(move(wins[4])) < abs(move(wins[3]))
    assert abs(move(change(games[3], b))) < abs(move(change(games[2], b)))
    assert wins[3].discounts == [{"opponent": b.pk, "weight": 0.5, "pair_game": 4}]
    assert wins[4].discounts == [{"opponent": b.pk, "weight": 0.25, "pair_game": 5}]
    assert wins[2].discounts == []

    # Just over 24 hours after the first, it has left the window: the other four still count (0.25,
    # not 0.125); a day later the two start afresh.
    clock.set(first.finished_at + timedelta(hours=24, minutes=1))
    sixth = play_out(rated_room(a, [b]), [a, b], worst=[b])
    assert change(sixth, a).weight == 0.25
    clock.advance(hours=24)
    fresh = play_out(rated_room(a, [b]), [a, b], worst=[b])
    assert change(fresh, a).weight == 1.0 and change(fresh, a).discounts == []
    assert change(fresh, a).rating_after == pytest.approx(rated_as(change(fresh, a), 1.0), abs=1e-9)


# -- newcomers ----------------------------------------------------------------------------------------


def test_a_newcomer_moves_a_settled_players_rating_by_a_quarter_and_their_own_in_full(strategy):
    settled_one, newcomer = settled("settled"), UserFactory(username="newcomer")
    game = play_out(rated_room(settled_one, [newcomer]), [settled_one, newcomer], worst=[newcomer])
    won, lost = change(game, settled_one), change(game, newcomer)
    assert won.weight == NEWCOMER_WEIGHT
    assert won.discounts == [{"opponent": newcomer.pk, "weight": NEWCOMER_WEIGHT, "newcomer": True}]
    assert won.rating_after == pytest.approx(rated_as(won, NEWCOMER_WEIGHT), abs=1e-9)
    full = rated_as(won, 1.0) - won.rating_before
    assert 0.2 < move(won) / full < 0.3  # about a quarter of what the same win against anyone else is
    # The newcomer's own rating moves in full.
    assert lost.weight == 1.0 and lost.discounts == []
    assert lost.rating_after == pytest.approx(rated_as(lost, 1.0), abs=1e-9)
    assert lost.rating_after == pytest.approx(
        glicko2.rate(glicko2.Rating(), [(glicko2.Rating(1500, 60), 0.0)]).rating
    )


@pytest.mark.parametrize(
    ("games_before", "weight"), [(NEWCOMER_GAMES - 1, NEWCOMER_WEIGHT), (NEWCOMER_GAMES, 1.0)]
)
def test_a_newcomer_is_someone_with_fewer_than_five_rated_games(strategy, games_before, weight):
    a, b = settled("ann"), UserFactory(username="bob")
    PlayerRating.objects.create(user=b, games=games_before)
    game = play_out(rated_room(a, [b]), [a, b], worst=[b])
    assert change(game, a).weight == weight


def test_the_newcomer_and_the_pair_weights_multiply(strategy):
    a, b = settled("ann"), UserFactory(username="bob")
    games = [play_out(rated_room(a, [b]), [a, b], worst=[b]) for _ in range(PAIR_GAMES_A_DAY + 1)]
    # Bob has had 3 rated games before the fourth: still a newcomer, and it is the pair's 4th today.
    assert [change(g, a).weight for g in games] == [0.25, 0.25, 0.25, 0.125]
    assert [change(g, b).weight for g in games] == [1.0, 1.0, 1.0, 0.5]
    assert change(games[3], a).discounts == [
        {"opponent": b.pk, "weight": 0.125, "pair_game": 4, "newcomer": True}
    ]
    assert discount_notes(change(games[3], a), {b.pk: "bob"}) == [
        "against bob: counted ×0.125: the same two people's rated game number 4 in 24 hours, "
        "a newcomer's result"
    ]


def test_the_rule_says_the_numbers_in_english_and_dutch():
    rule = rating_rule()
    for words in (
        "forfeits before playing 3 of their own turns aborts the game",
        "first 3 rated games between the same two people in 24 hours count in full",
        "fewer than 5 rated games counts for only 25%",
        "of the last 30 days before the mark",
    ):
        assert words in rule
    with translation.override("nl"):
        dutch = rating_rule()
    assert "voordat die 3 eigen beurten" in dutch and "25%" in dutch and "30 dagen" in dutch
    assert "verliest reglementair" in dutch  # the rule before fair play, still Dutch


# -- refunds -------------------------------------------------------------------------------------------


def mark(user, since) -> None:
    """What fair play's marking does: publish the event inside its transaction."""
    with transaction.atomic():
        events.publish(events.AccountMarked(user_id=user.pk, since=since))


@pytest.fixture
def marked_history(strategy, monkeypatch):
    """The cheat's rated games: 40 and 20 days ago against o40 and o20 (both lost), today against
    loser (lost) and winner (won). Returns the users and the clock."""
    now = timezone.now()
    clock = Clock(monkeypatch, now - timedelta(days=40))
    cheat = settled("cheat")
    o40, o20, loser, winner = (settled(n) for n in ("o40", "o20", "loser", "winner"))
    play_out(rated_room(cheat, [o40]), [cheat, o40], worst=[o40])
    clock.set(now - timedelta(days=20))
    play_out(rated_room(cheat, [o20]), [cheat, o20], worst=[o20])
    clock.set(now)
    play_out(rated_room(cheat, [loser]), [cheat, loser], worst=[loser])
    play_out(rated_room(winner, [cheat]), [winner, cheat], worst=[cheat])
    clock.advance(minutes=5)
    return cheat, o40, o20, loser, winner, clock


def rating(user) -> float:
    return PlayerRating.objects.get(user=user).rating


def loss(user) -> float:
    ch = RatingChange.objects.get(user=user)
    assert ch.rating_after < ch.rating_before
    return ch.rating_before - ch.rating_after


def test_a_mark_refunds_each_loss_once_within_the_window_and_not_the_winners(marked_history):
    cheat, o40, o20, loser, winner, clock = marked_history
    before = {u.pk: rating(u) for u in (cheat, o40, o20, loser, winner)}
    updated = PlayerRating.objects.get(user=loser).updated_at

    mark(cheat, since=clock.now - timedelta(days=10))
    assert rating(loser) == pytest.approx(before[loser.pk] + loss(loser), abs=1e-9)
    assert rating(o20) == before[o20.pk]  # before the `since` asked for
    assert rating(winner) == before[winner.pk]  # won: nothing to give back
    assert rating(cheat) == before[cheat.pk]  # the marked account's own rating stays (the boards hide it)
    refund = RatingRefund.objects.get()
    assert (refund.user_id, refund.marked_id, refund.points) == (
        loser.pk,
        cheat.pk,
        pytest.approx(loss(loser)),
    )
    # A refund is no game: the rating's idle clock and its history stay.
    assert PlayerRating.objects.get(user=loser).updated_at == updated
    assert RatingChange.objects.filter(user=loser).count() == 1

    # Marked again, asking for 60 days: the window stops at 30, and today's loss is not given twice.
    mark(cheat, since=clock.now - timedelta(days=60))
    assert rating(loser) == pytest.approx(before[loser.pk] + loss(loser), abs=1e-9)
    assert rating(o20) == pytest.approx(before[o20.pk] + loss(o20), abs=1e-9)
    assert rating(o40) == before[o40.pk]  # 40 days ago: outside REFUND_WINDOW
    assert sorted(RatingRefund.objects.values_list("user_id", flat=True)) == sorted([loser.pk, o20.pk])


def test_marking_twice_refunds_once(marked_history):
    cheat, _o40, o20, loser, _winner, clock = marked_history
    since = clock.now - REFUND_WINDOW
    mark(cheat, since)
    after_first = {u.pk: rating(u) for u in (o20, loser)}
    assert refund_opponents(user_id=cheat.pk, since=since) == []
    mark(cheat, since)
    assert {u.pk: rating(u) for u in (o20, loser)} == after_first
    assert RatingRefund.objects.filter(user=loser).count() == 1
    assert RatingRefund.objects.count() == 2


def test_the_player_page_says_the_refund_in_english_and_dutch(marked_history):
    cheat, _o40, _o20, loser, _winner, clock = marked_history
    page = client_for(loser).get(f"/players/{loser.username}/").content.decode()
    assert "data-rating-refunded" not in page
    mark(cheat, clock.now - REFUND_WINDOW)
    points = round(loss(loser))
    page = client_for(loser).get(f"/players/{loser.username}/").content.decode()
    assert f'data-rating-refunded="{points}"' in page
    assert f"Refunded: +{points} points from games against an account marked for unfair play." in page
    nl = client_for(loser, "nl").get(f"/players/{loser.username}/").content.decode()
    assert f"Teruggegeven: +{points} punten" in nl
    assert [r.user_id for r in refunds_of(loser.pk)] == [loser.pk]


def test_the_player_page_shows_a_game_that_counted_for_less(strategy):
    a, b = settled("ann"), UserFactory(username="bob")
    play_out(rated_room(a, [b]), [a, b], worst=[b])
    page = client_for(a).get(f"/players/{a.username}/").content.decode()
    assert 'data-counted-less="0.25"' in page and "a newcomer&#x27;s result" in page
    assert "data-counted-less" not in client_for(b).get(f"/players/{b.username}/").content.decode()


@pytest.mark.django_db(transaction=True)
def test_two_markings_at_once_refund_once(marked_history):
    # Real threads and transactions: on PostgreSQL the second waits on the first's row locks and
    # finds its refunds; on SQLite the IMMEDIATE transactions take turns.
    cheat, _o40, o20, loser, _winner, clock = marked_history
    before = {u.pk: rating(u) for u in (o20, loser)}
    since = clock.now - REFUND_WINDOW

    def marking():
        mark(cheat, since)
        return True

    assert race(2, marking) == [True, True]
    assert RatingRefund.objects.filter(user=loser).count() == 1
    assert RatingRefund.objects.filter(user=o20).count() == 1
    assert rating(loser) == pytest.approx(before[loser.pk] + loss(loser), abs=1e-9)
    assert rating(o20) == pytest.approx(before[o20.pk] + loss(o20), abs=1e-9)
