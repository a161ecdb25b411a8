"""Races on PostgreSQL (real threads, real transactions, its row locks; skipped on SQLite, whose one writer
at a time races nothing): entries past the limit, the same person entering or starting a round twice at
once, two clocks making the weekly tournament, and 200 entrants finishing a round in the same second,
which make one correct table, one close of the round and one push."""

from __future__ import annotations

import asyncio
from collections import Counter
from fractions import Fraction

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.db import connection

from analysis import services as review_services
from dicegame import events, play
from dicegame.models import Game, Player
from puzzles import services as puzzle_services
from tests.support.factories import UserFactory, actor
from tests.support.games import race
from tests.support.tournaments import near_the_end, round_of, seasoned, tournament_of
from tournaments import pushes, rounds, selectors, services
from tournaments.models import Entry, RoundGame, StandingsChange, Tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


@pytest.fixture(autouse=True)
def _postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("races row locks: run with DATABASE_URL=postgres://...")


def test_concurrent_entries_never_pass_the_limit():
    host = UserFactory(username="host")
    t = tournament_of(host, max_entrants=5, access=Tournament.Access.PUBLIC)
    people = [UserFactory(username=f"p{i}") for i in range(20)]
    seasoned(*people)  # what a rated tournament asks of its entrants
    waiting = list(people)
    results = race(20, lambda: services.entry_join(tournament_id=t.pk, user=waiting.pop()))
    joined = [r for r in results if isinstance(r, Entry)]
    refused = [r for r in results if isinstance(r, services.TournamentError)]
    assert len(joined) == 4 and len(refused) == 16, results
    assert all("full" in r.message and r.status == 409 for r in refused)
    t.refresh_from_db()
    assert t.entrant_count == 5 == Entry.objects.filter(tournament=t).count()


def test_one_person_entering_twice_at_once_enters_once():
    host, ann = UserFactory(username="host"), UserFactory(username="ann")
    seasoned(ann)
    t = tournament_of(host, access=Tournament.Access.PUBLIC)
    results = race(4, lambda: services.entry_join(tournament_id=t.pk, user=ann))
    assert sum(isinstance(r, Entry) for r in results) == 1, results
    assert all("already" in r.message for r in results if isinstance(r, services.TournamentError))
    t.refresh_from_db()
    assert t.entrant_count == 2 == Entry.objects.filter(tournament=t).count()


def test_starting_a_round_twice_at_once_makes_one_game():
    ann, ben = UserFactory(username="ann"), UserFactory(username="ben")
    t = tournament_of(ann, ben)
    results = race(4, lambda: services.round_play(tournament_id=t.pk, user=ann))
    assert all(isinstance(r, Game) for r in results), results
    assert len({g.pk for g in results}) == 1
    assert RoundGame.objects.filter(entry__user=ann).count() == 1 == Game.objects.exclude(dice_key="").count()


def test_two_clocks_make_one_weekly_tournament():
    results = race(2, rounds.weekly_ensure)
    made = Tournament.objects.filter(weekly_of__isnull=False)
    assert sum(results) == made.count() >= 1, results
    assert len({t.weekly_of for t in made}) == made.count()
    for t in made:
        assert t.round_set.count() == 3


@pytest.fixture
def without_the_analysis():
    """The review's analysis and the puzzles that follow each game's end (tens of milliseconds of CPU a
    game, after its commit) are left out: 200 of them in one process would hold the test's 30 pooled
    connections past the pool's 10-second wait, and they are not what this test is about."""
    listeners = [
        (events.GameFinished, review_services.on_game_finished),
        (events.GamesAnalysed, puzzle_services.on_games_analysed),
    ]
    for event, listener in listeners:
        events.unsubscribe(event, listener)
    yield
    for event, listener in listeners:
        events.subscribe(event, listener)


def test_200_entrants_finishing_a_round_in_the_same_second_make_one_correct_table(
    strategy, without_the_analysis
):
    host = UserFactory(username="e000")
    others = [UserFactory(username=f"e{i:03d}") for i in range(1, 200)]
    t = tournament_of(host, *others, rounds=2, max_entrants=200)
    everyone = [host, *others]
    games = {u.pk: near_the_end(t, u, ("easy", "medium", "hard")[i % 3]) for i, u in enumerate(everyone)}
    StandingsChange.objects.all().delete()
    waiting = list(everyone)

    def finish():
        user = waiting.pop()
        return play.turn_confirm(game_id=games[user.pk].pk, actor=actor(user), turn=13, roll=1)

    results = race(200, finish)
    assert not [r for r in results if isinstance(r, Exception)], [
        r for r in results if isinstance(r, Exception)
    ][:3]

    # Every game over, its total in the standings, a change noted for each.
    totals = dict(Player.objects.filter(game__in=games.values()).values_list("user_id", "total"))
    assert Game.objects.filter(pk__in=[g.pk for g in games.values()], status="finished").count() == 200
    rows = RoundGame.objects.filter(round__tournament=t)
    assert {rg.entry.user_id: rg.total for rg in rows.select_related("entry")} == totals
    assert StandingsChange.objects.filter(tournament=t).count() == 200

    # The clock's next sweep closes the round (everyone has played it) and pushes one table to the open
    # pages, however many games ended; the sweep after it has nothing to send.
    message = async_to_sync(_pushed_once)(selectors.standings_group(t.pk))
    assert message["type"] == "standings"
    html = message["by_language"]["en"]
    assert html.count('data-user-id="') == 200 and 'data-phase="s1-o2-p"' in html
    assert not StandingsChange.objects.exists()
    r1, r2 = round_of(t, 1), round_of(t, 2)
    last = rows.order_by("-finished_at").first().finished_at
    assert r1.settled_at is not None and r1.closes_at == r1.settled_at >= last
    assert r2.opens_at == r1.closes_at

    # The table: every entrant's matchpoints worked out here pair by pair, against the selector's.
    table = {row.user_id: row for row in selectors.table(selectors.load(t))}
    assert len(table) == 200
    for uid, total in totals.items():
        points = sum(
            Fraction(1) if total > o else Fraction(1, 2) if total == o else 0
            for u, o in totals.items()
            if u != uid
        )
        assert table[uid].percent == pytest.approx(float(points / 199 * 100))
        assert table[uid].place == 1 + sum(1 for o in totals.values() if o > total)
        assert f'data-user-id="{uid}" data-place="{table[uid].place}"' in html
    assert len(Counter(totals.values())) > 1  # several totals, with ties among them


async def _pushed_once(group: str) -> dict:
    """What a page of the group receives when the clock pushes twice: one message, then nothing."""
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(group, channel)
    await sync_to_async(pushes.push_due)()
    await sync_to_async(pushes.push_due)()  # nothing changed since: nothing sent
    message = await asyncio.wait_for(layer.receive(channel), 5)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(layer.receive(channel), 0.5)
    return message
