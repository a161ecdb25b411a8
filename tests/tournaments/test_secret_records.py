"""A tournament round's dice are every entrant's until the round closes, so a round's game stays out of
every record and board until then (issue 38, finding 12; `dicegame.records.secret_until`): the player
page (its statistics and recent games), the leaderboards among friends and site-wide, My games and the
home page's list, the CSV export, the game's JSON export (the par, the optimal line, the luck), the
review and the end of the game's "new best". When the round closes, all of it counts, at once (the
cached pages are computed again)."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re

import pytest

from accounts.models import Profile
from dicegame import records
from dicegame.models import Player
from dicegame.play import sweeper as game_clock
from tests.support.clock import Clock
from tests.support.factories import UserFactory, befriend, client_for
from tests.support.tournaments import play_round, round_of, seasoned, tournament_of
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

START = dt.datetime(2026, 6, 10, 10, 0, tzinfo=dt.UTC)


@pytest.fixture
def clock(monkeypatch):
    return Clock(monkeypatch, START)


@pytest.fixture
def played(clock):
    """Ann (on the site-wide boards, Ben's friend) has finished her game of a round still open."""
    ann, ben = UserFactory(username="ann"), UserFactory(username="ben")
    befriend(ann, ben)
    Profile.objects.update_or_create(user=ann, defaults={"leaderboard_opt_in": True})
    t = tournament_of(ann, ben, rounds=1, rated=False, access=Tournament.Access.PUBLIC)
    game = play_round(t, ann)
    assert game.is_finished and records.secret_until(game) == round_of(t, 1).closes_at
    total = Player.objects.get(game=game).total
    return ann, ben, t, game, total


def _close_the_round(clock, t):
    clock.set(round_of(t, 1).closes_at)
    game_clock.sweep(force=True)
    assert round_of(t, 1).settled_at is not None


def _board(page: str, key: str) -> str:
    return page.split(f'data-board="{key}"')[1].split("</section>")[0]


def test_the_player_page_counts_the_round_only_once_it_has_closed(clock, played):
    ann, ben, t, game, total = played
    for viewer in (ann, ben, UserFactory(username="stranger")):
        page = client_for(viewer).get("/players/ann/").content.decode()
        assert "No finished games yet." in page and 'data-stat="best"' not in page, viewer
        assert f'href="/games/{game.pk}/review/"' not in page
    _close_the_round(clock, t)
    for viewer in (ann, ben):
        page = client_for(viewer).get("/players/ann/").content.decode()
        assert f'data-stat="best">{total}<' in page and 'data-stat="games">1<' in page
    assert f'href="/games/{game.pk}/review/"' in client_for(ann).get("/players/ann/").content.decode()


def test_the_leaderboards_leave_the_round_out_until_it_closes(clock, played):
    ann, ben, t, _game, total = played
    site = client_for(ben).get("/leaderboard/?scope=site").content.decode()
    friends = client_for(ben).get("/leaderboard/?scope=friends").content.decode()
    for page in (site, friends):
        assert 'data-user="ann"' not in _board(page, "best")
    _close_the_round(clock, t)
    site = client_for(ben).get("/leaderboard/?scope=site").content.decode()
    friends = client_for(ben).get("/leaderboard/?scope=friends").content.decode()
    for page in (site, friends):
        best = _board(page, "best")
        assert 'data-user="ann"' in best and f'data-value="{total}"' in best


def test_the_export_keeps_the_par_and_the_luck_until_the_round_closes(clock, played):
    ann, _ben, t, game, total = played
    client = client_for(ann)
    export = json.loads(client.get(f"/games/{game.pk}/export.json").content)
    seat = export["analysis"]["seats"]["1"]
    assert export["results_secret_until"] == round_of(t, 1).closes_at.isoformat()
    assert "optimal" not in seat and "luck" not in seat and "lines" not in seat
    assert "luck" not in seat["summary"] and "optimal_total" not in seat["summary"]
    assert all(r["luck"] is None for r in export["analysis"]["rolls"])
    assert seat["final"] == total and "accuracy" in seat  # the entrant's own play stays
    _close_the_round(clock, t)
    export = json.loads(client.get(f"/games/{game.pk}/export.json").content)
    seat = export["analysis"]["seats"]["1"]
    assert export["results_secret_until"] is None and export["seed"] == game.seed
    assert seat["optimal"]["total"] == round_of(t, 1).par and len(seat["optimal"]["turns"]) == 13
    assert "luck" in seat and any(r["luck"] is not None for r in export["analysis"]["rolls"])


def test_the_review_shows_neither_par_nor_luck_until_the_round_closes(clock, played):
    ann, _ben, t, game, _total = played
    page = client_for(ann).get(f"/games/{game.pk}/review/").content.decode()
    assert "data-results-secret-until" in page
    assert "data-luck=" not in page and "data-optimal-total" not in page and "data-turn-luck" not in page
    assert "data-luck-chart" not in page and "data-accuracy=" in page
    assert "data-not-counted" not in page.split("<tbody")[0]  # pending, not "not counted"
    _close_the_round(clock, t)
    page = client_for(ann).get(f"/games/{game.pk}/review/").content.decode()
    assert "data-results-secret-until" not in page
    assert f'data-optimal-total="{round_of(t, 1).par}"' in page
    assert "data-luck=" in page and "data-turn-luck" in page and "data-luck-chart" in page


def test_my_games_and_the_home_page_show_no_total_until_the_round_closes(clock, played):
    ann, _ben, t, game, total = played
    client = client_for(ann)
    history = client.get("/games/").content.decode()
    row = re.search(rf'<tr data-game="{game.pk}">.*?</tr>', history, re.S).group(0)
    assert 'data-total=""' in row and "the result comes when the round closes" in row
    assert "data-not-counted" not in row
    home = client.get("/").content.decode()
    line = re.search(rf'<li data-game="{game.pk}">.*?</li>', home, re.S).group(0)
    assert f"· {total}" not in line
    _close_the_round(clock, t)
    history = client.get("/games/").content.decode()
    row = re.search(rf'<tr data-game="{game.pk}">.*?</tr>', history, re.S).group(0)
    assert f'data-total="{total}"' in row and "the result comes" not in row


def test_the_csv_export_lists_the_round_once_it_has_closed(clock, played):
    ann, _ben, t, game, total = played
    client = client_for(ann)

    def rows():
        text = b"".join(client.get("/games/export.csv").streaming_content).decode()
        return {int(r["game"]): r for r in csv.DictReader(io.StringIO(text))}

    assert game.pk not in rows()
    _close_the_round(clock, t)
    row = rows()[game.pk]
    assert int(row["total"]) == total and row["counts_for_records"] == "1"


def test_the_end_of_the_game_promises_no_record_until_the_round_closes(clock, played):
    ann, _ben, t, game, _total = played
    seasoned(ann)  # earlier games of 5 points: the round's total would be "a new best"
    page = client_for(ann).get(f"/games/{game.pk}/").content.decode()
    assert "it joins your records and statistics when the round closes" in page
    assert "data-new-best" not in page and 'data-best="5"' in page


def test_the_one_rule_agrees_for_a_seat_and_for_a_queryset(clock, played):
    ann, _ben, t, game, _total = played
    seats = Player.objects.filter(user=ann)
    assert not records.counted_seats(seats).exists() and not records.revealed_seats(seats).exists()
    assert not records.counts_for_records(game=game, stand_in_turns=0)
    assert records.not_counted_reason(game=game, stand_in_turns=0) == ""
    assert records.pending_reason(game)
    _close_the_round(clock, t)
    game.refresh_from_db()
    assert records.counted_seats(seats).get().game_id == game.pk
    assert records.counts_for_records(game=game, stand_in_turns=0) and not records.pending_reason(game)


def test_a_round_that_closes_early_reveals_its_games_at_once(clock):
    ann, ben = UserFactory(username="ann"), UserFactory(username="ben")
    Profile.objects.update_or_create(user=ann, defaults={"leaderboard_opt_in": True})
    t = tournament_of(ann, ben, rounds=2, max_entrants=2, rated=False)
    game = play_round(t, ann)
    page = client_for(ann).get("/players/ann/").content.decode()
    assert "No finished games yet." in page
    clock.advance(minutes=5)
    play_round(t, ben)
    game_clock.sweep(force=True)  # the clock: every entrant has played, the round closes now
    assert round_of(t, 1).settled_at == START + dt.timedelta(minutes=5)
    game.refresh_from_db()
    assert records.secret_until(game) is None
    total = Player.objects.get(game=game).total
    assert f'data-stat="best">{total}<' in client_for(ann).get("/players/ann/").content.decode()
