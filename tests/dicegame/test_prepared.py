"""The turn flow's and the header's queries compiled once (core.prepared): a query with
constants of its own (a choice, a flag, which PostgreSQL inlines and SQLite passes) runs with the
caller's value where its sample was, and gives the rows the ORM gives."""

import pytest
from django.db.models.signals import post_init

from core.prepared import PreparedSelect, row_builder
from dicegame.models import Game, Player
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


def _fields(instance):
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


def test_a_row_becomes_the_instance_the_orm_makes_of_it():
    """`row_builder` fills the instance's dict itself: every field, the state of a saved row, foreign
    keys that still load their object, and a save that writes the row."""
    game, host, _friend = two_player_game()
    names = [f.attname for f in Player._meta.concrete_fields]
    row = list(Player.objects.filter(game=game).order_by("seat").values_list(*names)[0])
    built = row_builder(Player, names)(row)
    orm = Player.objects.filter(game=game).order_by("seat").first()
    assert type(built) is Player and _fields(built) == _fields(orm)
    assert built._state.adding is False and built._state.db == "default"
    assert built.game == game and built.user == host
    built.name = "Renamed"
    built.save(update_fields=["name"])
    assert Player.objects.get(pk=built.pk).name == "Renamed"


def test_a_model_someone_listens_to_is_built_by_the_orm():
    """An init signal receiver (or an `__init__` of its own) must see every instance: such a model goes
    through `Model.from_db`."""
    seen = []

    def receiver(sender, instance, **kwargs):
        seen.append(instance)

    game, _host, _friend = two_player_game()
    names = [f.attname for f in Player._meta.concrete_fields]
    row = list(Player.objects.filter(game=game).values_list(*names)[0])
    post_init.connect(receiver, sender=Player)
    try:
        built = row_builder(Player, names)(row)
    finally:
        post_init.disconnect(receiver, sender=Player)
    assert seen == [built] and built._state.adding is False


def test_a_row_of_some_fields_is_built_by_the_orm():
    built = row_builder(Player, ["id", "name"])([1, "Ann"])
    assert built.name == "Ann" and built.get_deferred_fields() >= {"game_id", "seat"}
