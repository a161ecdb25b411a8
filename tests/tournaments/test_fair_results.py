"""Results nobody can dress up: withdrawing after a bad round keeps the place it earned (issue 38,
finding 4); an entrant who never starts a game is no player, in no field and in nobody's "of N"; a rated
tournament counts for the player pages only if at least RATED_MIN_PLAYERS played it, and its page says
how many did (finding 5)."""

from __future__ import annotations

import datetime as dt

import pytest

from dicegame.models import Player
from dicegame.play import sweeper as game_clock
from tests.support.clock import Clock
from tests.support.factories import UserFactory, client_for
from tests.support.tournaments import made_up_round_game, play_round, round_of, tournament_of
from tournaments import lists, selectors, services
from tournaments.models import RATED_MIN_PLAYERS, Entry, Tournament

pytestmark = pytest.mark.django_db

START = dt.datetime(2026, 6, 10, 10, 0, tzinfo=dt.UTC)


@pytest.fixture
def clock(monkeypatch):
    return Clock(monkeypatch, START)


def _users(*names):
    return [UserFactory(username=n) for n in names]


def _close(clock, t, number):
    clock.set(round_of(t, number).closes_at)
    game_clock.sweep(force=True)


def _entry(t, user) -> Entry:
    return Entry.objects.get(tournament=t, user=user)


# -- finding 4: withdrawing keeps the place ---------------------------------------------------------------


@pytest.mark.parametrize("round_2", ["not started", "started"])
def test_withdrawing_after_a_bad_round_keeps_the_last_place_on_every_record(clock, round_2):
    ann, ben, cas, dora = _users("ann", "ben", "cas", "dora")
    t = tournament_of(ann, ben, cas, dora, rounds=2, access=Tournament.Access.PUBLIC)
    r1, r2 = round_of(t, 1), round_of(t, 2)
    for user, total in ((ann, 250), (ben, 200), (cas, 150), (dora, 100)):
        made_up_round_game(_entry(t, user), r1, total)
    _close(clock, t, 1)
    # Last after round 1, Dora withdraws before the final round closes (before or while playing it).
    if round_2 == "started":
        game = play_round(t, dora, turns=2)
    assert services.entry_withdraw(tournament_id=t.pk, user=dora) == "withdrew"
    for user, total in ((ann, 120), (ben, 180), (cas, 140)):
        made_up_round_game(_entry(t, user), r2, total)
    _close(clock, t, 2)
    t.refresh_from_db()
    assert t.finished_at is not None

    rows = {r.name: r for r in selectors.table(selectors.load(t))}
    assert rows["dora"].withdrawn and rows["dora"].place == 4
    assert rows["dora"].cells[0].percent == 0.0 and rows["dora"].cells[1].percent == 0.0
    if round_2 == "started":
        # The game she started counts as it stands (two turns, closed with the boxes written).
        assert rows["dora"].cells[1].total == Player.objects.get(game=game).total < 120
    else:
        assert rows["dora"].cells[1].total is None  # not started: nothing, and everyone beat her
    # Her round 2 gave the three others a matchpoint each: Ben beat Cas, Ann and her.
    assert rows["ben"].cells[1].percent == 100.0 and rows["ann"].cells[1].percent == pytest.approx(100 / 3)
    assert (_entry(t, dora).place, _entry(t, dora).score) == (4, 0.0)

    results = lists.player_results(dora.pk)
    assert (results.played, results.best.place, results.best.of, results.average) == (1, 4, 4, 0.0)
    page = client_for(dora).get("/players/dora/").content.decode()
    assert 'data-best-place="4"' in page and "4 of 4" in page and 'data-matchpoint-average="0.0"' in page
    tournament_page = client_for(ann).get(f"/tournaments/{t.pk}/").content.decode()
    assert f'data-user="dora" data-user-id="{dora.pk}" data-place="4"' in tournament_page


def test_withdrawing_before_any_game_still_leaves_the_tournament(clock):
    ann, ben, cas = _users("ann", "ben", "cas")
    t = tournament_of(ann, ben, cas)
    assert services.entry_withdraw(tournament_id=t.pk, user=cas) == "left"
    assert not Entry.objects.filter(tournament=t, user=cas).exists()


# -- finding 5: entrants who never play --------------------------------------------------------------------


def test_an_entrant_who_never_starts_a_game_gives_no_matchpoints_and_is_not_in_of_n(clock):
    ann, ben, cas, dora, eve = _users("ann", "ben", "cas", "dora", "eve")
    t = tournament_of(ann, ben, cas, dora, eve, rounds=1)
    r1 = round_of(t, 1)
    for user, total in ((ann, 200), (ben, 150), (cas, 100), (dora, 50)):
        made_up_round_game(_entry(t, user), r1, total)
    _close(clock, t, 1)

    rows = {r.name: r for r in selectors.table(selectors.load(t))}
    # The field is the four who played: Ben beat two of three (not three of four with Eve), Dora none.
    assert rows["ann"].percent == 100.0
    assert rows["ben"].percent == pytest.approx(200 / 3)
    assert rows["cas"].percent == pytest.approx(100 / 3)
    assert rows["dora"].percent == 0.0
    assert rows["eve"].place is None and rows["eve"].cells[0].percent is None
    places = {e.user.username: e.place for e in Entry.objects.filter(tournament=t)}
    assert places == {"ann": 1, "ben": 2, "cas": 3, "dora": 4, "eve": None}
    assert lists.player_results(ann.pk).best.of == 4
    assert lists.player_results(eve.pk).played == 0
    page = client_for(ann).get(f"/tournaments/{t.pk}/").content.decode()
    assert 'data-players="4"' in page and "data-below-rated-min" not in page
    t.refresh_from_db()
    share = selectors.page(t, viewer_id=dora.pk, share_url="x").share_text
    assert ": 4 of 4 (0.0%)" in share


def test_idle_accounts_no_longer_make_a_rated_winner(clock):
    """The attack: one person made three one-round rated tournaments, each with three accounts that
    never played, and their page read "Best place 1 of 4 · Matchpoint average 100.0%"."""
    mallory = UserFactory(username="mallory")
    for k, total in enumerate((21, 30, 27)):
        idle = _users(f"idle{k}a", f"idle{k}b", f"idle{k}c")
        t = tournament_of(mallory, *idle, rounds=1, max_entrants=4)
        made_up_round_game(_entry(t, mallory), round_of(t, 1), total)
        _close(clock, t, 1)
        t.refresh_from_db()
        assert t.finished_at is not None
        rows = {r.name: r for r in selectors.table(selectors.load(t))}
        # Alone in the field: an average round (50%), never 100% over accounts that did not play.
        assert rows["mallory"].percent == 50.0 and rows["mallory"].place == 1
        assert all(rows[u.username].place is None for u in idle)
        page = client_for(mallory).get(f"/tournaments/{t.pk}/").content.decode()
        assert 'data-players="1"' in page and "data-below-rated-min" in page
        assert f"fewer than the {RATED_MIN_PLAYERS} a rated tournament needs" in page
        clock.advance(hours=2)
    results = lists.player_results(mallory.pk)
    assert results.played == 0 and results.best is None
    page = client_for(mallory).get("/players/mallory/").content.decode()
    assert "No rated tournament played yet." in page
    assert "1 of 4" not in page and "100.0%" not in page and "data-best-place" not in page


def test_a_rated_tournament_counts_once_the_minimum_has_played_and_the_page_says_so(clock):
    assert RATED_MIN_PLAYERS == 3
    ann, ben, cas = _users("ann", "ben", "cas")
    t = tournament_of(ann, ben, cas, rounds=1)
    page = client_for(ann).get(f"/tournaments/{t.pk}/").content.decode()
    assert 'data-players="0"' in page
    assert "if at least 3 entrants play it" in page
    r1 = round_of(t, 1)
    for user, total in ((ann, 200), (ben, 150)):
        made_up_round_game(_entry(t, user), r1, total)
    page = client_for(ann).get(f"/tournaments/{t.pk}/").content.decode()
    assert 'data-players="2"' in page and "2 entrants have started a game" in page
    made_up_round_game(_entry(t, cas), r1, 50)
    _close(clock, t, 1)
    page = client_for(ann).get(f"/tournaments/{t.pk}/").content.decode()
    assert 'data-players="3"' in page and "data-below-rated-min" not in page
    assert lists.player_results(ann.pk).played == 1
    dutch = client_for(ann, language="nl").get(f"/tournaments/{t.pk}/").content.decode()
    assert "3 deelnemers hebben een spel begonnen" in dutch
    # One of the three taken off the table afterwards (fair play): two players left, it no longer counts.
    Entry.objects.filter(tournament=t, user=cas).update(place=None)
    assert lists.player_results(ann.pk).played == 0


def test_a_rated_tournament_ending_below_the_minimum_says_so_in_dutch_too(clock):
    ann, ben, idle = _users("ann", "ben", "idle")
    t = tournament_of(ann, ben, idle, rounds=1)
    for user, total in ((ann, 200), (ben, 150)):
        made_up_round_game(_entry(t, user), round_of(t, 1), total)
    _close(clock, t, 1)
    assert lists.player_results(ann.pk).played == 0
    english = client_for(ann).get(f"/tournaments/{t.pk}/").content.decode()
    assert "Only 2 entrants played, fewer than the 3 a rated tournament needs" in english
    dutch = client_for(ann, language="nl").get(f"/tournaments/{t.pk}/").content.decode()
    assert "data-below-rated-min" in dutch and "telde niet mee" in dutch
    # Not rated at all: no minimum to speak of.
    Tournament.objects.filter(pk=t.pk).update(rated=False)
    assert "data-below-rated-min" not in client_for(ann).get(f"/tournaments/{t.pk}/").content.decode()


def test_the_minimum_follows_the_setting(clock, settings):
    ann, ben = _users("ann", "ben")
    t = tournament_of(ann, ben, rounds=1)
    for user, total in ((ann, 200), (ben, 150)):
        made_up_round_game(_entry(t, user), round_of(t, 1), total)
    _close(clock, t, 1)
    assert lists.player_results(ann.pk).played == 0
    settings.PENTA_RATED_MIN_PLAYERS = 2
    assert lists.player_results(ann.pk).played == 1
