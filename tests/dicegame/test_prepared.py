"""The turn flow's and the header's queries compiled once (dicegame.prepared): a query with
constants of its own (a choice, a flag, which PostgreSQL inlines and SQLite passes) runs with the
caller's value where its sample was, and gives the rows the ORM gives."""

import pytest

from dicegame.models import Game, Player
from dicegame.prepared import PreparedSelect
from tests.support.factories import UserFactory
from tests.support.games import two_player_game

pytestmark = pytest.mark.django_db


def seats_of(user_id):
    seats = Player.objects.filter(user_id=user_id, stand_in=False, game__status=Game.Status.ACTIVE)
    return seats.order_by("pk")


def test_constants_stay_and_the_callers_value_goes_where_the_sample_was():
    game, host, friend = two_player_game()
    other = UserFactory()
    prepared = PreparedSelect(seats_of, (-7_091_931,))
    for user in (host, friend, other):
        assert [p.pk for p in prepared.fetch(user.pk)] == [p.pk for p in seats_of(user.pk)]
    Player.objects.filter(game=game, user=host).update(stand_in=True)  # the flag is a constant of the query
    assert prepared.fetch(host.pk) == [] and len(prepared.fetch(friend.pk)) == 1


def test_a_sample_not_in_the_query_is_refused():
    ignores_it = lambda user_id: seats_of(5)  # noqa: E731
    with pytest.raises(ValueError, match="cannot prepare"):
        PreparedSelect(ignores_it, (-7_091_931,)).fetch(5)


def test_a_sample_found_twice_is_refused():
    """The sample must be a value no other parameter has: where would the caller's go?"""
    twice = lambda user_id: seats_of(user_id).filter(game__host_id=user_id)  # noqa: E731
    with pytest.raises(ValueError, match="cannot prepare"):
        PreparedSelect(twice, (-7_091_931,)).fetch(5)


def test_a_date_goes_as_the_connection_writes_dates():
    """SQLite takes dates as ISO text, PostgreSQL as dates: the caller's date is written the same way
    its sample was, so the rows are the ORM's on either."""
    import datetime as dt

    from daily.models import DailySeed

    days = [dt.date(2026, 6, d) for d in (9, 10, 11, 14)]
    DailySeed.objects.bulk_create([DailySeed(date=d, seed=f"{d}", commitment=f"c{d}") for d in days])

    def between(first, last):
        return DailySeed.objects.filter(date__gte=first, date__lte=last).order_by("date")

    prepared = PreparedSelect(between, (dt.date(1, 1, 2), dt.date(1, 1, 3)))
    first, last = dt.date(2026, 6, 10), dt.date(2026, 6, 14)
    assert [r.date for r in prepared.fetch(first, last)] == [r.date for r in between(first, last)]
    assert [r.date for r in prepared.fetch(first, last)] == days[1:]
    assert prepared.fetch(dt.date(2026, 6, 12), dt.date(2026, 6, 13)) == []
