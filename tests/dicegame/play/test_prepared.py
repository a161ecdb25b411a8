"""The turn flow's and the header's queries compiled once (dicegame.play.prepared): a query with
constants of its own (a choice, a flag, which PostgreSQL inlines and SQLite passes) runs with the
caller's value where its sample was, and gives the rows the ORM gives."""

import pytest

from dicegame.models import Game, Player
from dicegame.play.prepared import PreparedSelect
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
