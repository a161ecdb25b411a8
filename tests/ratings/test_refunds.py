"""Marking an account refunds what its seat cost each rated opponent, no more (issue 38, finding 6): the
game rated again without the marked seat, from what was stored (the ratings before it, its results and
their weights), and each opponent given the difference where it is a gain, once.

The games are made with the factories and rated by the real rating service (`game_rate`, as a game's
end does), with exact totals; the marking is staff's (`fairplay.services.mark`). The expected numbers
come from `ratings.glicko2.rate`."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from dicegame.models import Game
from fairplay import services as fair_play
from fairplay.models import Case
from ratings import glicko2
from ratings.models import PlayerRating, RatingChange, RatingRefund
from ratings.services import game_rate
from tests.support.factories import GameFactory, PlayerFactory, UserFactory
from tests.support.games import race

pytestmark = pytest.mark.django_db

SETTLED_RD = 80.0


def settled(name: str, rating: float, *, idle_weeks: int = 0):
    """A person with a long rating history, last rated `idle_weeks` weeks ago."""
    user = UserFactory(username=name)
    row = PlayerRating.objects.create(user=user, rating=rating, rd=SETTLED_RD, volatility=0.06, games=30)
    PlayerRating.objects.filter(pk=row.pk).update(updated_at=timezone.now() - timedelta(weeks=idle_weeks))
    return user


def rated_game(totals: dict) -> Game:
    """A finished rated game among friends with these totals (user -> total), rated as its end rates
    it."""
    game = GameFactory(
        kind=Game.Kind.FRIENDS,
        rated=True,
        status=Game.Status.FINISHED,
        finished_at=timezone.now(),
        seats_wanted=len(totals),
    )
    players = [
        PlayerFactory(game=game, seat=seat, user=user, total=total)
        for seat, (user, total) in enumerate(totals.items())
    ]
    for p in players:
        p.rank = 1 + sum(1 for o in players if o.total > p.total)
        p.save(update_fields=["rank"])
    with transaction.atomic():  # as the game's end holds one
        assert len(game_rate(game, players)) == len(players)
    return game


def before(user, game) -> glicko2.Rating:
    ch = RatingChange.objects.get(game=game, user=user)
    return glicko2.Rating(ch.rating_before, ch.rd_before, 0.06)


def after(user, game) -> float:
    return RatingChange.objects.get(game=game, user=user).rating_after


def rating(user) -> float:
    return PlayerRating.objects.get(user=user).rating


def mark(user, admin) -> Case:
    case, _ = Case.objects.get_or_create(user=user)
    return fair_play.mark(case.pk, by=admin)


def test_the_game_found_refunds_dave_only_what_the_marked_seat_cost_him(admin_user):
    """Totals: honest bob 100, the later-marked account 97, dave 20. Dave lost to both; only his loss to
    the marked account is given back, and bob, who beat it, keeps his rating as it is."""
    bob, cheat, dave = settled("bob", 1600), settled("cheat", 1550), settled("dave", 1450, idle_weeks=3)
    game = rated_game({bob: 100, cheat: 97, dave: 20})
    d, b, c = before(dave, game), before(bob, game), before(cheat, game)
    # Dave's three idle weeks widened his deviation before the game (the rating period's rule).
    assert d.rd == pytest.approx(glicko2.idle(glicko2.Rating(1450, SETTLED_RD), 3).rd)
    assert after(dave, game) == pytest.approx(glicko2.rate(d, [(b, 0.0), (c, 0.0)]).rating, abs=1e-9)
    full_loss = d.rating - after(dave, game)
    ratings_before = {u.pk: rating(u) for u in (bob, cheat, dave)}

    mark(cheat, admin_user)

    without_the_cheat = glicko2.rate(d, [(b, 0.0)]).rating  # dave's rating had the cheat not played
    refund = RatingRefund.objects.get()
    assert (refund.user_id, refund.game_id, refund.marked_id) == (dave.pk, game.pk, cheat.pk)
    assert refund.points == pytest.approx(without_the_cheat - after(dave, game), abs=1e-9)
    assert 0 < refund.points < full_loss  # before: the whole loss, including what he lost to bob
    assert rating(dave) == pytest.approx(without_the_cheat, abs=1e-9)
    assert rating(bob) == ratings_before[bob.pk] and rating(cheat) == ratings_before[cheat.pk]


def test_a_two_seat_game_refunds_the_whole_loss(admin_user):
    cheat, loser = settled("cheat", 1500), settled("loser", 1500)
    game = rated_game({cheat: 250, loser: 180})
    loss = before(loser, game).rating - after(loser, game)
    assert loss > 0
    mark(cheat, admin_user)
    assert RatingRefund.objects.get(user=loser).points == pytest.approx(loss, abs=1e-9)
    assert rating(loser) == pytest.approx(before(loser, game).rating, abs=1e-9)


def test_an_opponent_who_gained_in_the_game_gets_back_what_the_marked_seat_cost_them(admin_user):
    """The cheat beat bob, bob beat dave: bob's rating may have gone up, yet it would have gone up more
    without the cheat at the table. Dave, who beat nobody, lost to the cheat too."""
    cheat, bob, dave = settled("cheat", 1500), settled("bob", 1500), settled("dave", 1700)
    game = rated_game({cheat: 100, bob: 97, dave: 20})
    b, d = before(bob, game), before(dave, game)
    assert after(bob, game) > b.rating  # bob gained in the game
    mark(cheat, admin_user)
    refunds = {r.user_id: r.points for r in RatingRefund.objects.all()}
    assert refunds[bob.pk] == pytest.approx(glicko2.rate(b, [(d, 1.0)]).rating - after(bob, game), abs=1e-9)
    assert refunds[dave.pk] == pytest.approx(glicko2.rate(d, [(b, 0.0)]).rating - after(dave, game), abs=1e-9)


def test_the_pair_weights_stay_as_the_game_had_them(admin_user):
    """Bob and dave's fourth rated game together in 24 hours counted at half: rated again without the
    cheat, it still does."""
    bob, cheat, dave = settled("bob", 1500), settled("cheat", 1500), settled("dave", 1500)
    for _ in range(3):
        rated_game({bob: 200, dave: 190})
    game = rated_game({bob: 100, cheat: 97, dave: 20})
    dave_change = RatingChange.objects.get(game=game, user=dave)
    assert dave_change.discounts == [{"opponent": bob.pk, "weight": 0.5, "pair_game": 4}]
    d, b = before(dave, game), before(bob, game)
    volatility = RatingChange.objects.filter(user=dave).order_by("id")[2].volatility_after
    d = glicko2.Rating(d.rating, d.rd, volatility)  # as the three games before left it
    mark(cheat, admin_user)
    without = glicko2.rate(d, [(b, 0.0, 0.5)]).rating
    assert RatingRefund.objects.get(user=dave).points == pytest.approx(without - after(dave, game), abs=1e-9)
    assert rating(dave) == pytest.approx(without, abs=1e-9)


def test_two_marked_accounts_at_one_table_refund_no_more_than_both_cost(admin_user):
    bob, cheat1, cheat2, dave = (settled(n, 1500) for n in ("bob", "cheat1", "cheat2", "dave"))
    game = rated_game({bob: 150, cheat1: 140, cheat2: 130, dave: 20})
    d, b = before(dave, game), before(bob, game)
    mark(cheat1, admin_user)
    first = rating(dave)
    mark(cheat2, admin_user)
    without_both = glicko2.rate(d, [(b, 0.0)]).rating
    assert first < rating(dave) == pytest.approx(without_both, abs=1e-9)
    assert RatingRefund.objects.filter(user=dave).count() == 2
    # A marked account gets nothing back (cheat2 got what cheat1 cost it while it was not marked yet).
    assert not RatingRefund.objects.filter(user=cheat1).exists()


def test_marking_twice_in_a_row_refunds_once(admin_user):
    bob, cheat, dave = settled("bob", 1600), settled("cheat", 1550), settled("dave", 1450)
    rated_game({bob: 100, cheat: 97, dave: 20})
    case = mark(cheat, admin_user)
    once = rating(dave)
    with pytest.raises(fair_play.FairPlayError):
        fair_play.mark(case.pk, by=admin_user)
    from ratings.services import refund_opponents

    assert refund_opponents(user_id=cheat.pk) == []  # the ratings' own guard, without fair play's
    assert rating(dave) == once and RatingRefund.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_staff_clicks_at_once_refund_once(admin_user):
    """Real threads and transactions (run it on PostgreSQL: the case's and the ratings' row locks); one
    click marks, the other is refused with a message, never an error."""
    bob, cheat, dave = settled("bob", 1600), settled("cheat", 1550), settled("dave", 1450)
    game = rated_game({bob: 100, cheat: 97, dave: 20})
    case = Case.objects.create(user=cheat)
    results = race(2, lambda: fair_play.mark(case.pk, by=admin_user))
    assert sorted(type(r).__name__ for r in results) == ["Case", "FairPlayError"], results
    d, b = before(dave, game), before(bob, game)
    assert RatingRefund.objects.count() == 1
    assert rating(dave) == pytest.approx(glicko2.rate(d, [(b, 0.0)]).rating, abs=1e-9)


@pytest.mark.django_db(transaction=True)
def test_two_accounts_at_one_table_marked_at_once_refund_what_both_cost(admin_user):
    """The later marking waits for the earlier one's locks, then sees its refunds and its mark."""
    bob, cheat1, cheat2, dave = (settled(n, 1500) for n in ("bob", "cheat1", "cheat2", "dave"))
    game = rated_game({bob: 150, cheat1: 140, cheat2: 130, dave: 20})
    cases = [Case.objects.create(user=cheat1), Case.objects.create(user=cheat2)]
    results = race(2, lambda: fair_play.mark(cases.pop().pk, by=admin_user))
    assert [type(r).__name__ for r in results] == ["Case", "Case"], results
    d, b = before(dave, game), before(bob, game)
    assert rating(dave) == pytest.approx(glicko2.rate(d, [(b, 0.0)]).rating, abs=1e-9)
    assert RatingRefund.objects.filter(user=dave).count() == 2
