"""A game with someone new (issue 41): "Play someone now" pairs two people waiting, at a similar rating,
the range widening as the wait grows, a computer offered after a minute alone, the same two not paired
again and again, guests casual only; and open correspondence games anyone may take. (The races, on
PostgreSQL: test_seek_races.py.)"""

import datetime as dt

import pytest

from dicegame.actors import Actor
from dicegame.errors import GameActionError
from dicegame.models import Game
from dicegame.offers import Seek
from dicegame.play import inbox, rooms, seeks, sweeper
from dicegame.rules.turn import CORRESPONDENCE_GAMES_MAX
from tests.support.clock import Clock
from tests.support.factories import UserFactory, actor
from tests.support.games import current

pytestmark = pytest.mark.django_db

DAY = 24 * 3600
START = dt.datetime(2026, 6, 1, 18, 0, tzinfo=dt.UTC)


@pytest.fixture
def clock(monkeypatch):
    return Clock(monkeypatch, START)


@pytest.fixture
def people(db):
    return [UserFactory(username=name) for name in ("ann", "bob", "cas", "dee")]


def seek(user, *, rating=1500.0, rated=False, turn_seconds=60) -> seeks.SeekState:
    return seeks.seek_live(actor=actor(user), rated=rated, turn_seconds=turn_seconds, rating=rating)


def poll(state: seeks.SeekState, user) -> seeks.SeekState:
    return seeks.seek_poll(seek_id=state.seek.pk, actor=actor(user))


def test_two_people_waiting_meet_in_a_live_game(clock, people):
    ann, bob, *_ = people
    first = seek(ann, rated=True)
    assert first.game_id is None and first.range == 100 and not first.offer_computer
    clock.advance(seconds=3)
    second = seek(bob, rating=1560, rated=True)
    game = Game.objects.get(pk=second.game_id)
    assert game.is_active and game.rated and game.turn_seconds == 60 and game.kind == Game.Kind.FRIENDS
    # The one who waited longer moves first; the first one's page finds the game at its next ask.
    assert [p.user for p in game.players.order_by("seat")] == [ann, bob]
    assert current(game.pk).player.user == ann
    assert poll(first, ann).game_id == game.pk
    assert set(Seek.objects.values_list("status", flat=True)) == {Seek.Status.PAIRED}


def test_the_range_widens_as_the_wait_grows(clock, people):
    ann, bob, *_ = people
    low = seek(ann, rating=1400)
    high = seek(bob, rating=1750)  # 350 apart: too far for two who have just come
    assert low.game_id is None and high.game_id is None
    for _ in range(5):  # 25 seconds: 100 + 5 x 50 = 350
        clock.advance(seconds=5)
        low, high = poll(low, ann), poll(high, bob)
    assert low.range == 350
    assert high.game_id is not None or poll(low, ann).game_id is not None


def test_rated_casual_and_the_turn_timer_keep_apart(people):
    ann, bob, cas, dee = people
    assert seek(ann, rated=True).game_id is None
    assert seek(bob, rated=False).game_id is None
    assert seek(cas, rated=True, turn_seconds=30).game_id is None
    assert seek(dee, rated=True).game_id is not None  # ann's kind


def test_the_computer_is_offered_after_a_minute_alone(clock, people):
    state = seek(people[0])
    clock.advance(seconds=59)
    assert not poll(state, people[0]).offer_computer
    clock.advance(seconds=1)
    assert poll(state, people[0]).offer_computer


def test_the_same_two_are_not_paired_again_and_again(clock, people):
    ann, bob, cas, _ = people
    seek(ann)
    assert seek(bob).game_id
    clock.advance(minutes=20)
    again = seek(ann)
    assert seek(bob).game_id is None and poll(again, ann).game_id is None
    assert seek(cas).game_id is not None  # someone new comes: ann (the longest waiting, equal) or bob
    clock.advance(minutes=45)  # an hour after their game, they may meet again
    waiting = Seek.objects.get(status=Seek.Status.OPEN).user
    assert seek(waiting).game_id is None  # (still looking: the page asks again)
    assert seek(ann if waiting == bob else bob).game_id is not None


def test_a_search_whose_page_is_gone_is_not_paired_and_lapses(clock, people):
    ann, bob, *_ = people
    seek(ann)
    clock.advance(seconds=seeks.ALIVE_SECONDS + 1)
    assert seek(bob).game_id is None
    clock.advance(seconds=seeks.ALIVE_SECONDS + 1)
    sweeper.sweep(force=True)
    assert Seek.objects.get(user=ann).status == Seek.Status.EXPIRED


def test_a_guest_plays_casual_games_only(people):
    guest = Actor(guest_key="guest-key", name="Guest")
    before = Seek.objects.count()
    with pytest.raises(GameActionError, match="Log in to play rated games") as refused:
        seeks.seek_live(actor=guest, rated=True, turn_seconds=60, rating=None)
    assert refused.value.status == 403 and Seek.objects.count() == before
    seeks.seek_live(actor=guest, rated=False, turn_seconds=60, rating=None)
    game = Game.objects.get(pk=seek(people[0]).game_id)
    assert [(p.user_id, p.guest_key) for p in game.players.order_by("seat")] == [
        (None, "guest-key"),
        (people[0].pk, ""),
    ]


def test_one_search_at_a_time_and_a_bad_timer_is_refused(people):
    ann = people[0]
    first = seek(ann)
    assert seek(ann).seek.pk == first.seek.pk  # pressed again: the same search
    with pytest.raises(GameActionError, match="30, 60 or 120") as refused:
        seek(ann, turn_seconds=45)
    assert refused.value.status == 400
    other = seek(ann, turn_seconds=30)  # another kind replaces it
    assert Seek.objects.get(pk=first.seek.pk).status == Seek.Status.CANCELLED
    seeks.seek_cancel(seek_id=other.seek.pk, actor=actor(ann))
    assert not Seek.objects.filter(status=Seek.Status.OPEN).exists()
    with pytest.raises(GameActionError) as refused:
        seeks.seek_poll(seek_id=other.seek.pk, actor=actor(people[1]))
    assert refused.value.status == 404


# -- the open correspondence games ---------------------------------------------------------------------


def post(user, *, rating=1500.0, move_seconds=DAY, rated=False) -> Seek:
    return seeks.seek_post(actor=actor(user), rated=rated, move_seconds=move_seconds, rating=rating)


def test_an_open_game_is_listed_by_pace_and_rating_and_taken_by_one_tap(clock, people):
    ann, bob, cas, dee = people
    slow = post(ann, rating=1400, move_seconds=3 * DAY)
    quick = post(bob, rating=1700, move_seconds=3600, rated=True)
    assert [
        s.pk
        for s in inbox.open_games(viewer_id=dee.pk, move_seconds=None, min_rating=None, max_rating=None).seeks
    ] == [slow.pk, quick.pk]
    listed = inbox.open_games(viewer_id=dee.pk, move_seconds=3600, min_rating=None, max_rating=None)
    assert [s.pk for s in listed.seeks] == [quick.pk]
    listed = inbox.open_games(viewer_id=dee.pk, move_seconds=None, min_rating=1450, max_rating=1800)
    assert [s.pk for s in listed.seeks] == [quick.pk]
    # Nobody is offered their own; the owner sees theirs in their inbox.
    assert [
        s.pk
        for s in inbox.open_games(viewer_id=ann.pk, move_seconds=None, min_rating=None, max_rating=None).seeks
    ] == [quick.pk]
    assert [s.pk for s in inbox.inbox_for(user_id=ann.pk).seeks] == [slow.pk]

    game = seeks.seek_accept(seek_id=quick.pk, actor=actor(dee))
    assert game.is_active and game.is_correspondence and game.rated and game.move_seconds == 3600
    assert [p.user for p in game.players.order_by("seat")] == [dee, bob]  # the one who took it moves first
    assert current(game.pk).deadline_at == clock.now + dt.timedelta(hours=1)
    with pytest.raises(GameActionError, match="Someone else took this game first") as refused:
        seeks.seek_accept(seek_id=quick.pk, actor=actor(cas))
    assert refused.value.status == 409 and Game.objects.count() == 1


def test_an_open_game_refuses_its_owner_guests_and_a_51st(people):
    ann, bob, *_ = people
    mine = post(ann)
    with pytest.raises(GameActionError, match="your own open game") as refused:
        seeks.seek_accept(seek_id=mine.pk, actor=actor(ann))
    assert refused.value.status == 400
    with pytest.raises(GameActionError, match="Log in") as refused:
        seeks.seek_accept(seek_id=mine.pk, actor=Actor(guest_key="g", name="Guest"))
    assert refused.value.status == 403
    with pytest.raises(GameActionError, match="open game in the list already") as refused:
        post(ann)
    assert refused.value.status == 409
    for _ in range(CORRESPONDENCE_GAMES_MAX):
        rooms.room_create(actor=actor(bob), seats=2, turn_seconds=0, move_seconds=DAY)
    with pytest.raises(GameActionError, match="already play 50") as refused:
        seeks.seek_accept(seek_id=mine.pk, actor=actor(bob))
    assert refused.value.status == 409
    with pytest.raises(GameActionError, match="already play 50"):
        post(bob)
    assert Seek.objects.get(pk=mine.pk).is_open


def test_an_open_game_lapses_after_a_week(clock, people):
    mine = post(people[0])
    clock.advance(days=7)
    sweeper.sweep(force=True)
    assert Seek.objects.get(pk=mine.pk).status == Seek.Status.EXPIRED
    with pytest.raises(GameActionError, match="no longer offered") as refused:
        seeks.seek_accept(seek_id=mine.pk, actor=actor(people[1]))
    assert refused.value.status == 410
