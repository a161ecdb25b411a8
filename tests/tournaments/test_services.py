"""Tournaments through their services: making one, entering (once, to the limit, while entry is open,
never as a guest), leaving and withdrawing, one game per round on the round's dice (the same for every
entrant whatever they hold), no hints, the windows closed by the clock with no page open, a round closed
early when everyone has played, the final table and the players' results, fair play, the weekly
tournament."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import AnonymousUser

from accounts.models import Profile
from core import versions
from dicegame import events, play
from dicegame.errors import GameActionError
from dicegame.models import Game, Player, Turn
from dicegame.play import sweeper as game_clock
from dicegame.rules import dice
from dicegame.strategy import Strategy
from dicegame.strategy.analysis import optimal_line
from tests.support.clock import Clock
from tests.support.factories import UserFactory, actor, befriend, client_for
from tests.support.games import current
from tests.support.tournaments import (
    HOUR,
    made_up_round_game,
    play_round,
    play_turn,
    round_of,
    seasoned,
    tournament_of,
)
from tournaments import lists, pushes, rounds, selectors, services
from tournaments.models import Entry, Round, RoundGame, Tournament

pytestmark = pytest.mark.django_db

START = dt.datetime(2026, 6, 10, 10, 0, tzinfo=dt.UTC)  # a Wednesday


@pytest.fixture
def clock(monkeypatch):
    return Clock(monkeypatch, START)


@pytest.fixture
def people(db):
    ann, ben, cas = (UserFactory(username=n) for n in ("ann", "ben", "cas"))
    seasoned(ann, ben, cas)  # what a rated tournament asks of its entrants
    return ann, ben, cas


# -- making one ---------------------------------------------------------------------------------------------


def test_a_tournament_is_made_with_its_rounds_committed_and_its_maker_entered(clock, people):
    ann, *_ = people
    t = tournament_of(ann, rounds=3, window=2 * HOUR)
    rs = list(Round.objects.filter(tournament=t).order_by("number"))
    assert [r.number for r in rs] == [1, 2, 3]
    assert [r.opens_at for r in rs] == [START, START + dt.timedelta(hours=2), START + dt.timedelta(hours=4)]
    assert all(r.closes_at == r.opens_at + dt.timedelta(hours=2) for r in rs)
    assert len({r.seed for r in rs}) == 3 and all(dice.commitment(r.seed) == r.commitment for r in rs)
    assert t.entrant_count == 1 and Entry.objects.get(tournament=t).user == ann


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"rounds": 0}, "1 to 7 rounds"),
        ({"rounds": 8}, "1 to 7 rounds"),
        ({"window_seconds": 3599}, "an hour to three days"),
        ({"window_seconds": 3 * 86400 + 1}, "an hour to three days"),
        ({"max_entrants": 1}, "2 to 200 entrants"),
        ({"max_entrants": 201}, "2 to 200 entrants"),
        ({"access": "everyone"}, "who may enter"),
        ({"name": "   "}, "a name"),
        ({"name": "x" * 61}, "at most 60"),
        ({"starts_in": -1}, "within two weeks"),
    ],
)
def test_bad_settings_are_refused_and_make_nothing(people, change, message):
    settings = {
        "user": people[0],
        "name": "Dice night",
        "rounds": 2,
        "window_seconds": HOUR,
        "max_entrants": 4,
        "access": "public",
        "rated": True,
    }
    with pytest.raises(services.TournamentError, match=message) as refused:
        services.tournament_create(**{**settings, **change})
    assert refused.value.status == 400
    assert not Tournament.objects.exists() and not Round.objects.exists()


def test_a_guest_can_neither_make_nor_enter_one(clock, people):
    t = tournament_of(people[0], access=Tournament.Access.PUBLIC)
    with pytest.raises(services.TournamentError) as refused:
        services.tournament_create(
            user=AnonymousUser(),
            name="x",
            rounds=1,
            window_seconds=HOUR,
            max_entrants=2,
            access="public",
            rated=True,
        )
    assert refused.value.status == 403
    with pytest.raises(services.TournamentError, match="Log in") as refused:
        services.entry_join(tournament_id=t.pk, user=AnonymousUser())
    assert refused.value.status == 403


# -- entering ---------------------------------------------------------------------------------------------


def test_by_invitation_the_makers_friends_and_the_links_holders_may_enter(clock, people):
    ann, ben, cas = people
    befriend(ann, ben)
    t = tournament_of(ann)
    with pytest.raises(services.TournamentError) as refused:
        services.entry_join(tournament_id=t.pk, user=cas)
    assert refused.value.status == 404  # a stranger without the link does not even see it
    services.entry_join(tournament_id=t.pk, user=ben)
    services.entry_join(tournament_id=t.pk, user=cas, token=t.invite_token)
    t.refresh_from_db()
    assert t.entrant_count == 3
    assert set(Entry.objects.filter(tournament=t).values_list("user__username", flat=True)) == {
        "ann",
        "ben",
        "cas",
    }


def test_one_entry_per_person_and_no_more_than_the_limit(clock, people):
    ann, ben, cas = people
    t = tournament_of(ann, ben, max_entrants=2)
    with pytest.raises(services.TournamentError, match="entered this tournament already"):
        services.entry_join(tournament_id=t.pk, user=ben, token=t.invite_token)
    with pytest.raises(services.TournamentError, match="full"):
        services.entry_join(tournament_id=t.pk, user=cas, token=t.invite_token)
    t.refresh_from_db()
    assert t.entrant_count == 2 == Entry.objects.filter(tournament=t).count()


def test_entry_closes_when_the_first_round_closes(clock, people):
    ann, ben, cas = people
    t = tournament_of(ann, ben, access=Tournament.Access.PUBLIC)
    clock.advance(minutes=59)
    services.entry_join(tournament_id=t.pk, user=cas)  # late, but round 1 is still open: it may play it
    dora = UserFactory(username="dora")
    clock.advance(minutes=1)
    with pytest.raises(services.TournamentError, match="closed"):
        services.entry_join(tournament_id=t.pk, user=dora)


def test_leaving_before_playing_gives_the_place_back(clock, people):
    ann, ben, cas = people
    t = tournament_of(ann, ben, max_entrants=2)
    assert services.entry_withdraw(tournament_id=t.pk, user=ben) == "left"
    assert not Entry.objects.filter(user=ben).exists()
    services.entry_join(tournament_id=t.pk, user=cas, token=t.invite_token)
    t.refresh_from_db()
    assert t.entrant_count == 2


# -- a round's game ---------------------------------------------------------------------------------------


def test_one_game_per_round_resumed_then_refused_once_finished(clock, people):
    ann, ben, _ = people
    t = tournament_of(ann, ben)
    game = services.round_play(tournament_id=t.pk, user=ann)
    r1 = round_of(t, 1)
    assert game.seed == r1.seed and game.dice_key == f"t{t.pk}-r1" and game.shared_until == r1.closes_at
    assert game.kind == Game.Kind.SOLO and game.seed_commitment == r1.commitment
    assert services.round_play(tournament_id=t.pk, user=ann).pk == game.pk  # resumed
    for _ in range(13):
        play_turn(game.pk, ann)
    with pytest.raises(services.TournamentError, match="played round 1"):
        services.round_play(tournament_id=t.pk, user=ann)
    assert RoundGame.objects.filter(entry__user=ann).count() == 1
    rg = RoundGame.objects.get(entry__user=ann)
    assert rg.finished_at is not None and rg.total == Player.objects.get(game=game).total


def test_a_round_is_played_only_by_its_entrants_in_its_window(clock, people):
    ann, ben, cas = people
    t = tournament_of(ann, ben, starts_in=HOUR)
    with pytest.raises(services.TournamentError, match="No round"):
        services.round_play(tournament_id=t.pk, user=ann)
    clock.advance(hours=1)
    with pytest.raises(services.TournamentError, match="not entered") as refused:
        services.round_play(tournament_id=t.pk, user=cas)
    assert refused.value.status == 403
    assert not Game.objects.filter(dice_key__startswith="t").exists()


def test_no_hints_in_a_round(clock, people):
    ann, ben, _ = people
    t = tournament_of(ann, ben)
    game = services.round_play(tournament_id=t.pk, user=ann)
    before = Game.objects.get(pk=game.pk).version
    with pytest.raises(GameActionError, match="no hints in a tournament game"):
        play.game_set_hints(game_id=game.pk, actor=actor(ann), on=True)
    response = client_for(ann).post(f"/games/{game.pk}/hints/", {"on": "1"}, headers={"HX-Request": "true"})
    assert response.status_code == 409 and "no hints in a tournament game" in response.content.decode()
    assert 'data-action="hints"' not in client_for(ann).get(f"/games/{game.pk}/").content.decode()
    game.refresh_from_db()
    assert game.version == before and not game.hints_used and not Player.objects.get(game=game).hints


def test_every_entrant_gets_the_same_faces_at_the_same_slots_whatever_they_hold(clock, people):
    ann, ben, _ = people
    t = tournament_of(ann, ben)
    a = play_round(t, ann, holds=((), ()))  # rolls all five every time: sees every slot
    b = play_round(t, ben, holds=((1, 2), (3,)))  # keeps some dice: sees fewer slots
    key = f"t{t.pk}-r1"
    assert a.seed == b.seed == round_of(t, 1).seed and a.dice_namespace == b.dice_namespace == key
    seen: dict[tuple[int, int, int], int] = {}
    compared = 0
    for game in (a, b):
        for turn in Turn.objects.filter(game=game).order_by("number"):
            for k, r in enumerate(turn.rolls, start=1):
                for d, (face, held) in enumerate(zip(r["dice"], r["held"], strict=True), start=1):
                    if held:
                        continue
                    slot = (turn.number, k, d)
                    assert face == dice.die_value(a.seed, key, *slot)
                    if slot in seen:
                        assert seen[slot] == face
                        compared += 1
                    seen[slot] = face
    # Ann rolled every slot; every one Ben rolled (5, then 3, then 2 dice a turn) was compared with hers.
    assert compared == 13 * (5 + 3 + 2)
    assert a.pk != b.pk and a.players.get().total and b.players.get().total


# -- the windows: the clock closes them, with no page open -------------------------------------------------


def test_the_clock_closes_a_round_its_unfinished_games_with_the_boxes_written(clock, people):
    ann, ben, cas = people
    t = tournament_of(ann, ben, cas, rounds=2)
    done = play_round(t, ann)
    half = play_round(t, ben, turns=4)
    t_now = current(half.pk)
    play.turn_roll(game_id=half.pk, actor=actor(ben), turn=t_now.number, roll=0)  # a turn in play
    written = dict(Player.objects.get(game=half).boxes)
    assert len(written) == 4
    r1 = round_of(t, 1)
    clock.set(r1.closes_at - dt.timedelta(seconds=1))
    game_clock.sweep(force=True)
    assert round_of(t, 1).settled_at is None
    clock.set(r1.closes_at)

    game_clock.sweep(force=True)  # what the run_timers process does, with no page open

    half.refresh_from_db()
    seat = Player.objects.get(game=half)
    assert half.is_finished and seat.boxes == written and seat.total == sum(written.values())
    assert not Turn.objects.filter(game=half, completed_at__isnull=True).exists()
    r1 = round_of(t, 1)
    assert r1.settled_at == r1.closes_at and r1.par is not None
    assert RoundGame.objects.get(game=half).total == seat.total
    # Round 2 is open now; the table counts round 1: Cas never started, so both others beat him.
    data = selectors.load(t)
    assert [v.state for v in data.views] == ["closed", "open"]
    rows = {r.name: r for r in selectors.table(data)}
    ann_total = Player.objects.get(game=done).total
    assert rows["cas"].cells[0].total is None and rows["cas"].percent == 0
    expected_ann = 100.0 if ann_total > seat.total else 75.0 if ann_total == seat.total else 50.0
    assert rows["ann"].percent == expected_ann
    assert rows["ann"].cells[1].status == "waiting"
    assert rows["ann"].vs_par == ann_total - r1.par


def test_the_par_is_optimal_play_on_the_rounds_dice(clock, people):
    t = tournament_of(*people[:2], rounds=1)
    r1 = round_of(t, 1)
    clock.set(r1.closes_at)
    game_clock.sweep(force=True)
    line = optimal_line(Strategy.shared(), r1.seed, r1.dice_key, seat=0, seat_count=1)
    assert round_of(t, 1).par == line["total"]


def test_a_round_closes_as_soon_as_every_entrant_has_played_it_and_the_next_opens(clock, people):
    ann, ben, _ = people
    t = tournament_of(ann, ben, rounds=3, max_entrants=2)
    play_round(t, ann)
    pushes.push_due()  # the clock's push after each change
    assert round_of(t, 1).settled_at is None  # Ben has not played yet
    clock.advance(minutes=10)
    b = play_round(t, ben)
    pushes.push_due()  # the last game's change: the round closes
    r1, r2, r3 = (round_of(t, n) for n in (1, 2, 3))
    now = START + dt.timedelta(minutes=10)
    assert r1.settled_at == now and r1.closes_at == now
    assert (r2.opens_at, r2.closes_at) == (now, now + dt.timedelta(hours=1))
    assert r3.opens_at == now + dt.timedelta(hours=1)
    b.refresh_from_db()
    assert b.shared_until == now and b.seed_secret_until is None  # the seed may be shown now


def test_a_round_waiting_only_for_an_entrant_who_withdraws_closes_then(clock, people):
    ann, ben, cas = people
    t = tournament_of(ann, ben, cas, rounds=2, max_entrants=3)
    for user in people:
        play_round(t, user)
    pushes.push_due()
    assert round_of(t, 1).settled_at is not None  # full, and everyone played it
    for user in (ann, ben):
        play_round(t, user)
    pushes.push_due()
    assert round_of(t, 2).settled_at is None
    clock.advance(minutes=5)
    assert services.entry_withdraw(tournament_id=t.pk, user=cas) == "withdrew"
    t.refresh_from_db()
    assert round_of(t, 2).settled_at == START + dt.timedelta(minutes=5) == t.finished_at
    # Cas played round 1 before withdrawing: he keeps a place, round 2 counted as not started.
    rows = {r.name: r for r in selectors.table(selectors.load(t))}
    assert rows["cas"].cells[1].total is None and rows["cas"].cells[1].percent == 0
    assert all(Entry.objects.get(user=u).place is not None for u in (ann, ben, cas))


def test_the_first_round_closes_early_only_when_the_tournament_is_full(clock, people):
    ann, ben, _ = people
    t = tournament_of(ann, ben, rounds=2, max_entrants=3)
    play_round(t, ann)
    play_round(t, ben)
    pushes.push_due()
    assert round_of(t, 1).settled_at is None  # a third may still enter and play it


def test_too_few_entrants_when_entry_closes_call_it_off(clock, people):
    t = tournament_of(people[0], rounds=2)
    play_round(t, people[0])
    clock.set(round_of(t, 1).closes_at)
    game_clock.sweep(force=True)
    t.refresh_from_db()
    assert t.cancelled_at is not None and t.finished_at is None
    with pytest.raises(services.TournamentError, match="No round"):
        services.round_play(tournament_id=t.pk, user=people[0])


# -- withdrawing, fair play ---------------------------------------------------------------------------------


def test_withdrawing_ends_the_game_in_play_and_the_games_keep_counting_for_the_others(clock, people):
    ann, ben, cas = people
    t = tournament_of(ann, ben, cas, rounds=2)
    r1 = round_of(t, 1)
    for user, total in ((ann, 200), (ben, 150)):
        made_up_round_game(Entry.objects.get(tournament=t, user=user), r1, total)
    made_up_round_game(Entry.objects.get(tournament=t, user=cas), r1, 250)
    clock.set(r1.closes_at)
    game_clock.sweep(force=True)
    game = play_round(t, cas, turns=3)
    written = dict(Player.objects.get(game=game).boxes)
    assert services.entry_withdraw(tournament_id=t.pk, user=cas) == "withdrew"
    game.refresh_from_db()
    assert game.is_finished and Player.objects.get(game=game).boxes == written
    with pytest.raises(services.TournamentError, match="withdrawn"):
        services.round_play(tournament_id=t.pk, user=cas)
    rows = {r.name: r for r in selectors.table(selectors.load(t))}
    # Round 1's field still has Cas's 250: Ann beat Ben only. Cas, withdrawn, keeps his place.
    assert rows["ann"].cells[0].percent == 50.0 and rows["ben"].cells[0].percent == 0.0
    assert rows["cas"].withdrawn and rows["cas"].place == 1


def test_an_entrant_off_the_boards_is_in_nobodys_field_and_not_placed(clock, people):
    ann, ben, cas = people
    t = tournament_of(ann, ben, cas, rounds=1)
    r1 = round_of(t, 1)
    for user, total in ((ann, 200), (ben, 150), (cas, 300)):
        made_up_round_game(Entry.objects.get(tournament=t, user=user), r1, total)
    Profile.objects.update_or_create(user=cas, defaults={"standing": Profile.Standing.REVIEW})
    clock.set(r1.closes_at)
    game_clock.sweep(force=True)
    rows = selectors.table(selectors.load(t))
    assert [(r.name, r.place, r.percent) for r in rows] == [("ann", 1, 100.0), ("ben", 2, 0.0)]
    # Under review, Cas still sees the table with himself in it (nothing shows him he is).
    mine = selectors.table(selectors.load(t, viewer_id=cas.pk), viewer_id=cas.pk)
    assert [(r.name, r.place) for r in mine] == [("cas", 1), ("ann", 2), ("ben", 3)]
    assert Entry.objects.get(user=cas).place is None and Entry.objects.get(user=ann).place == 1


def test_marking_an_account_writes_the_final_table_again_without_it(clock, people):
    ann, ben, cas = people
    t = tournament_of(ann, ben, cas, rounds=1)
    r1 = round_of(t, 1)
    for user, total in ((ann, 200), (ben, 150), (cas, 300)):
        made_up_round_game(Entry.objects.get(tournament=t, user=user), r1, total)
    clock.set(r1.closes_at)
    game_clock.sweep(force=True)
    assert Entry.objects.get(user=cas).place == 1
    Profile.objects.update_or_create(user=cas, defaults={"standing": Profile.Standing.MARKED})
    events.publish(events.AccountMarked(cas.pk, START))
    assert [Entry.objects.get(user=u).place for u in (ann, ben, cas)] == [1, 2, None]


# -- the final table and the players' results ------------------------------------------------------------


def test_the_final_table_is_written_and_rated_tournaments_reach_the_player_page(clock, people):
    ann, ben, cas = people
    t = tournament_of(ann, ben, cas, rounds=2)
    # Ben has played before (his version exists, so his page's sections are cached) and looks at his
    # page while the tournament runs: the final table must replace what was cached then.
    versions.bump(versions.user(ben.pk))
    page = client_for(ben).get("/players/ben/").content.decode()
    assert "No rated tournament played yet." in page and "data-best-place" not in page
    totals = {1: {ann: 200, ben: 200, cas: 150}, 2: {ann: 100, ben: 250, cas: 150}}
    for n in (1, 2):
        rnd = round_of(t, n)
        for user, total in totals[n].items():
            made_up_round_game(Entry.objects.get(tournament=t, user=user), rnd, total)
        clock.set(rnd.closes_at)
        game_clock.sweep(force=True)
    t.refresh_from_db()
    assert t.finished_at == round_of(t, 2).closes_at
    # Round 1: ann 75, ben 75, cas 0. Round 2: ben 100, cas 50, ann 0. Ben 175, Ann 75, Cas 50.
    places = {e.user.username: (e.place, e.score) for e in Entry.objects.filter(tournament=t)}
    assert places == {"ben": (1, 175.0), "ann": (2, 75.0), "cas": (3, 50.0)}
    results = lists.player_results(ben.pk)
    assert (results.played, results.best.place, results.best.of, results.average) == (1, 1, 3, 87.5)
    page = client_for(ben).get("/players/ben/").content.decode()
    assert 'data-best-place="1"' in page and 'data-matchpoint-average="87.5"' in page
    # Not rated: it stays on its page.
    Tournament.objects.filter(pk=t.pk).update(rated=False)
    assert lists.player_results(ben.pk).played == 0


# -- the weekly tournament --------------------------------------------------------------------------------


def test_the_weekly_tournament_is_made_ahead_once(clock):
    made = rounds.weekly_ensure()
    # Wednesday 2026-06-10 12:00 in Amsterdam: this week's started on Monday and takes entries until
    # Wednesday 00:00 (round 1's close), which has passed: only next week's is made.
    assert made == 1
    t = Tournament.objects.get()
    assert t.weekly_of == dt.date(2026, 6, 15) and t.access == "public" and t.rated and t.max_entrants == 200
    assert t.starts_at == dt.datetime(2026, 6, 14, 22, 0, tzinfo=dt.UTC)  # Monday 00:00 in Amsterdam
    assert [(r.closes_at - r.opens_at) for r in Round.objects.filter(tournament=t)] == [
        dt.timedelta(days=2)
    ] * 3
    assert rounds.weekly_ensure() == 0 and Tournament.objects.count() == 1
    game_clock.sweep(force=True)  # the clock's own registration does the same
    assert Tournament.objects.count() == 1
    clock.set(dt.datetime(2026, 6, 15, 8, 0, tzinfo=dt.UTC))  # Monday morning: the next one ahead
    assert rounds.weekly_ensure() == 1 and Tournament.objects.count() == 2
    assert lists.weekly().weekly_of == dt.date(2026, 6, 15)
