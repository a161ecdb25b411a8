"""Who may enter (or make) a rated tournament (issue 38, finding 5): an account at least
RATED_ENTRY_MIN_DAYS old with RATED_ENTRY_MIN_GAMES finished games that count for records. Anyone else
is refused with a clear 403 that changes nothing, on the service, the form post and the page, in
English and Dutch; 39 fresh accounts can no longer fill a tournament; an unrated tournament takes
anyone; concurrent entries still never pass the limit."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection

from dicegame.models import Game
from tests.support.clock import Clock
from tests.support.factories import GameFactory, PlayerFactory, UserFactory, client_for
from tests.support.games import race
from tests.support.tournaments import seasoned, tournament_of
from tournaments import eligibility, services
from tournaments.models import RATED_ENTRY_MIN_DAYS, RATED_ENTRY_MIN_GAMES, Entry, Tournament

pytestmark = pytest.mark.django_db

START = dt.datetime(2026, 6, 10, 10, 0, tzinfo=dt.UTC)


@pytest.fixture
def clock(monkeypatch):
    return Clock(monkeypatch, START)


@pytest.fixture
def host(clock):
    host = UserFactory(username="host")
    seasoned(host)
    return host


def _new(name):
    """An account made now (the test clock's now: the model's default reads the real clock)."""
    user = UserFactory(username=name)
    type(user).objects.filter(pk=user.pk).update(date_joined=START)
    user.refresh_from_db()
    return user


def _finished_games(user, n, **game):
    for k in range(n):
        g = GameFactory(status=Game.Status.FINISHED, finished_at=START - dt.timedelta(hours=k + 1), **game)
        PlayerFactory(game=g, user=user, total=150)


def _public(host, **kw) -> Tournament:
    return tournament_of(host, access=Tournament.Access.PUBLIC, **kw)


def test_the_rule_is_a_week_and_five_games():
    assert (RATED_ENTRY_MIN_DAYS, RATED_ENTRY_MIN_GAMES) == (7, 5)
    assert (eligibility.rated_entry_rule().days, eligibility.rated_entry_rule().games) == (7, 5)


def test_a_new_account_is_refused_a_rated_entry_and_nothing_changes(host):
    t = _public(host)
    fresh = _new("fresh")
    with pytest.raises(services.TournamentError) as refused:
        services.entry_join(tournament_id=t.pk, user=fresh)
    assert refused.value.status == 403
    assert "at least 7 days old with at least 5 finished games" in refused.value.message
    assert "yours is 0 days old with 0" in refused.value.message
    t.refresh_from_db()
    assert t.entrant_count == 1 and not Entry.objects.filter(user=fresh).exists()

    response = client_for(fresh).post(f"/tournaments/{t.pk}/enter/")
    assert response.status_code == 403
    assert "You cannot make or enter a rated tournament yet" in response.content.decode()
    dutch = client_for(fresh, language="nl").post(f"/tournaments/{t.pk}/enter/")
    assert dutch.status_code == 403 and "minstens 7 dagen oud" in dutch.content.decode()
    t.refresh_from_db()
    assert t.entrant_count == 1 and Entry.objects.filter(tournament=t).count() == 1


def test_an_old_account_needs_games_that_count_for_records(clock, host):
    t = _public(host)
    ann = UserFactory(username="ann")
    type(ann).objects.filter(pk=ann.pk).update(date_joined=START - dt.timedelta(days=30))
    ann.refresh_from_db()
    _finished_games(ann, 4)
    _finished_games(ann, 3, hints_used=True)  # hints: not the person's play, not counted
    _finished_games(ann, 3, kind=Game.Kind.LOCAL)  # one device: never counted
    GameFactory(status=Game.Status.ACTIVE)  # not finished
    with pytest.raises(services.TournamentError, match="yours is 30 days old with 4") as refused:
        services.entry_join(tournament_id=t.pk, user=ann)
    assert refused.value.status == 403
    _finished_games(ann, 1)
    services.entry_join(tournament_id=t.pk, user=ann)
    assert Entry.objects.filter(tournament=t, user=ann).exists()


def test_enough_games_but_too_new_an_account_is_refused_until_its_week_is_over(clock, host):
    t = _public(host)
    ann = _new("ann")
    _finished_games(ann, 10)
    with pytest.raises(services.TournamentError, match="yours is 0 days old with 5"):
        services.entry_join(tournament_id=t.pk, user=ann)
    clock.advance(days=7)
    t2 = _public(host, starts_in=0)
    services.entry_join(tournament_id=t2.pk, user=ann)
    assert Entry.objects.filter(tournament=t2, user=ann).exists()


def test_making_a_rated_tournament_asks_the_same_of_its_maker(clock):
    fresh = _new("fresh")
    client = client_for(fresh)
    form = {"name": "Mine", "rounds": "1", "window": "3600", "max_entrants": "4", "access": "public"}
    response = client.post("/tournaments/new/", {**form, "rated": "1"})
    assert response.status_code == 403
    page = response.content.decode()
    assert "data-form-error" in page and "You cannot make or enter a rated tournament yet" in page
    assert not Tournament.objects.exists()
    # Not rated: anyone logged in may make one, and anyone may enter it.
    response = client.post("/tournaments/new/", form)
    assert response.status_code == 302
    t = Tournament.objects.get()
    assert not t.rated
    other = UserFactory(username="other")
    services.entry_join(tournament_id=t.pk, user=other)
    t.refresh_from_db()
    assert t.entrant_count == 2


def test_thirty_nine_fresh_accounts_cannot_fill_a_rated_tournament(host):
    t = _public(host, max_entrants=40)
    puppets = [_new(f"puppet{i}") for i in range(39)]
    for puppet in puppets:
        with pytest.raises(services.TournamentError) as refused:
            services.entry_join(tournament_id=t.pk, user=puppet)
        assert refused.value.status == 403
    t.refresh_from_db()
    assert t.entrant_count == 1 == Entry.objects.filter(tournament=t).count()


def test_the_pages_state_the_rule_in_english_and_dutch(host):
    t = _public(host)
    fresh = _new("fresh")
    for client, words in (
        (client_for(fresh), "A rated tournament is open to accounts at least 7 days old"),
        (client_for(fresh, language="nl"), "minstens 7 dagen oud"),
    ):
        page = client.get(f"/tournaments/{t.pk}/").content.decode()
        assert 'data-rule="rated-entry"' in page and words in page
        # The viewer is told why they cannot enter, instead of a button that would refuse them.
        assert "data-entry-refused" in page and 'data-action="enter"' not in page
        index = client.get("/tournaments/").content.decode()
        assert 'data-rule="rated-entry"' in index and words in index
    page = client_for(seasoned_user("ready")).get(f"/tournaments/{t.pk}/").content.decode()
    assert 'data-action="enter"' in page and "data-entry-refused" not in page
    unrated = tournament_of(host, access=Tournament.Access.PUBLIC, rated=False)
    page = client_for(fresh).get(f"/tournaments/{unrated.pk}/").content.decode()
    assert 'data-rule="rated-entry"' not in page and 'data-action="enter"' in page


def seasoned_user(name):
    user = UserFactory(username=name)
    seasoned(user)
    return user


def test_the_rule_follows_the_settings(host, settings):
    t = _public(host)
    fresh = _new("fresh")
    settings.PENTA_RATED_ENTRY_MIN_DAYS = 0
    settings.PENTA_RATED_ENTRY_MIN_GAMES = 0
    services.entry_join(tournament_id=t.pk, user=fresh)
    assert Entry.objects.filter(tournament=t, user=fresh).exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_concurrent_entries_of_eligible_and_fresh_accounts_never_pass_the_limit():
    if connection.vendor != "postgresql":
        pytest.skip("races row locks: run with DATABASE_URL=postgres://...")
    host = UserFactory(username="host")
    seasoned(host)
    t = _public(host, max_entrants=5)
    ready = [UserFactory(username=f"ready{i}") for i in range(10)]
    seasoned(*ready)
    fresh = [UserFactory(username=f"fresh{i}") for i in range(10)]
    waiting = [*ready, *fresh]
    results = race(20, lambda: services.entry_join(tournament_id=t.pk, user=waiting.pop()))
    joined = [r for r in results if isinstance(r, Entry)]
    refused = [r for r in results if isinstance(r, services.TournamentError)]
    assert len(joined) == 4 and len(refused) == 16, results
    assert {r.user_id for r in joined} <= {u.pk for u in ready}
    assert sum(r.status == 403 for r in refused) == 10
    assert all("full" in r.message and r.status == 409 for r in refused if r.status != 403)
    t.refresh_from_db()
    assert t.entrant_count == 5 == Entry.objects.filter(tournament=t).count()
