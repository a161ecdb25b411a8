"""The daily challenge's game: the same dice for everyone, one ranked attempt a day, no hints, closed
with what was written when the day ends, and its seed shown nowhere (page, export, socket, command,
review) before the day is over."""

from __future__ import annotations

import datetime as dt
import json
import threading

import pytest
from channels.db import database_sync_to_async
from django.core.management import CommandError, call_command
from django.db import IntegrityError, close_old_connections, connection, transaction
from django.test import Client

from accounts.models import Profile
from daily import selectors, services, standings
from daily.models import DailyAttempt, DailySeed
from dicegame import play
from dicegame.actors import Actor
from dicegame.errors import GameActionError
from dicegame.models import Game, Player, Turn
from dicegame.play import sweeper as game_clock
from dicegame.rules import dice
from dicegame.strategy import Strategy, computer
from dicegame.strategy.analysis import optimal_line
from tests.support.clock import Clock
from tests.support.factories import (
    PASSWORD,
    GameFactory,
    UserFactory,
    actor,
    befriend,
    client_for,
)
from tests.support.games import current, race
from tests.support.history import made_up_result
from tests.support.sockets import open_game_socket

pytestmark = pytest.mark.django_db

UTC = dt.UTC
NOON = dt.datetime(2026, 6, 10, 10, 0, tzinfo=UTC)  # 12:00 in Amsterdam, 2026-06-10
DAY = dt.date(2026, 6, 10)
DAY_END = dt.datetime(2026, 6, 10, 22, 0, tzinfo=UTC)  # Amsterdam midnight (summer time)


@pytest.fixture
def clock(monkeypatch):
    return Clock(monkeypatch, NOON)


def play_daily_turn(game_id: int, who: Actor, holds: tuple[tuple[int, ...], ...] = ((), ())) -> None:
    """Roll, hold the dice numbered in holds[0], roll, hold holds[1] (toggling), roll, write the best."""
    t = current(game_id)
    play.turn_roll(game_id=game_id, actor=who, turn=t.number, roll=0)
    for k, hold in enumerate(holds, start=1):
        for die in hold:
            play.turn_toggle_hold(game_id=game_id, actor=who, turn=t.number, roll=k, die=die)
        play.turn_roll(game_id=game_id, actor=who, turn=t.number, roll=k)
    t = current(game_id)
    box = computer.auto_commit_box(t.player.sheet, tuple(t.dice))
    play.turn_choose_box(game_id=game_id, actor=who, turn=t.number, roll=3, box=box.name)
    play.turn_confirm(game_id=game_id, actor=who, turn=t.number, roll=3)


def play_daily(who: Actor, holds=((), ()), turns: int = 13) -> Game:
    attempt, _created = services.attempt_start(actor=who)
    for _ in range(turns):
        play_daily_turn(attempt.game_id, who, holds)
    return Game.objects.get(pk=attempt.game_id)


# -- the same dice for everyone --------------------------------------------------------------------------


def test_two_players_of_a_day_get_equal_faces_at_equal_slots_whatever_they_hold(clock):
    anna, ben = UserFactory(username="anna"), UserFactory(username="ben")
    a = play_daily(actor(anna), holds=((), ()))  # rolls all five every time: sees every slot
    b = play_daily(actor(ben), holds=((1, 2), (3,)))  # keeps some dice: sees fewer slots
    assert a.seed == b.seed and a.daily_date == b.daily_date == DAY and a.is_finished and b.is_finished
    assert a.seed == DailySeed.objects.get(date=DAY).seed
    seen: dict[tuple[int, int, int], int] = {}
    compared = 0
    for game in (a, b):
        for turn in game.turns.order_by("number"):
            for k, r in enumerate(turn.rolls, start=1):
                for die, (face, held) in enumerate(zip(r["dice"], r["held"], strict=True), start=1):
                    if held:
                        continue
                    slot = (turn.number, k, die)
                    assert face == dice.die_value(game.seed, DAY.isoformat(), *slot)
                    if slot in seen:
                        assert seen[slot] == face
                        compared += 1
                    seen[slot] = face
    # Anna rolled every slot; every one Ben rolled (5, then 3, then 2 dice a turn) was compared with hers.
    assert compared == 13 * (5 + 3 + 2)
    assert a.players.get().total != 0 and b.players.get().total != 0


# -- one ranked attempt a day ----------------------------------------------------------------------------


def test_a_second_start_resumes_and_a_finished_attempt_is_refused(clock):
    anna = UserFactory()
    first, created = services.attempt_start(actor=actor(anna))
    again, created_again = services.attempt_start(actor=actor(anna))
    assert created and not created_again and again.pk == first.pk and first.ranked
    for _ in range(13):
        play_daily_turn(first.game_id, actor(anna))
    with pytest.raises(GameActionError, match="played today's challenge") as refused:
        services.attempt_start(actor=actor(anna))
    assert refused.value.status == 409
    assert DailyAttempt.objects.count() == 1 and Game.objects.count() == 1
    client = client_for(anna)
    response = client.post("/daily/play/")
    assert response.status_code == 409 and "daily page" in response.content.decode()
    assert Game.objects.count() == 1


def test_the_page_plays_and_resumes(clock, client):
    page = client.get("/daily/").content.decode()
    assert 'data-action="daily-play"' in page and 'data-played="0"' in page
    assert DailySeed.objects.get(date=DAY).commitment in page
    response = client.post("/daily/play/")
    attempt = DailyAttempt.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/games/{attempt.game_id}/"
    assert not attempt.ranked and attempt.user is None and attempt.guest_key
    page = client.get("/daily/").content.decode()
    assert 'data-action="daily-resume"' in page and f"/games/{attempt.game_id}/" in page
    assert client.post("/daily/play/")["Location"] == f"/games/{attempt.game_id}/"
    assert DailyAttempt.objects.count() == 1
    # The guest's game is unranked: nobody has played a ranked attempt yet.
    assert 'data-played="0"' in page


def test_play_needs_a_post_with_csrf(clock):

    strict = Client(enforce_csrf_checks=True)
    assert strict.post("/daily/play/").status_code == 403
    assert strict.get("/daily/play/").status_code == 405
    assert DailyAttempt.objects.count() == 0


@pytest.mark.skipif(connection.vendor == "sqlite", reason="SQLite serialises writers: no race to lose")
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_starts_make_one_ranked_attempt():
    anna = UserFactory()
    services.publish_commitments()
    barrier = threading.Barrier(2)
    results, errors = [], []

    def start():
        try:
            barrier.wait()
            results.append(services.attempt_start(actor=actor(anna))[0].pk)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            close_old_connections()

    threads = [threading.Thread(target=start) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(set(results)) == 1
    assert DailyAttempt.objects.filter(user=anna, ranked=True).count() == 1
    assert Game.objects.filter(daily_date__isnull=False).count() == 1


def test_the_database_refuses_a_second_ranked_attempt(clock):
    anna = UserFactory()
    attempt, _ = services.attempt_start(actor=actor(anna))

    with pytest.raises(IntegrityError), transaction.atomic():
        DailyAttempt.objects.create(date=DAY, game=GameFactory(daily_date=DAY), user=anna, ranked=True)


# -- guests and claiming ----------------------------------------------------------------------------------


def test_a_guests_attempt_moves_into_the_account_on_sign_up_and_stays_unranked(clock, client):
    client.post("/daily/play/")
    attempt = DailyAttempt.objects.get()
    assert not attempt.ranked
    client.post(
        "/accounts/signup/",
        {"username": "anna", "password1": "dice-are-nice-42", "password2": "dice-are-nice-42"},
    )
    attempt.refresh_from_db()
    # A guest saw every die of the day: the run never becomes the account's ranked result.
    assert attempt.user.username == "anna" and not attempt.ranked and attempt.guest_key == ""
    assert Player.objects.get(game=attempt.game).user.username == "anna"
    # The account's day is used by it: the page resumes it, a new start makes no second game.
    assert client.post("/daily/play/")["Location"] == f"/games/{attempt.game_id}/"
    assert DailyAttempt.objects.count() == 1 and not DailyAttempt.objects.filter(ranked=True).exists()


def test_the_replayed_guest_run_attack_ranks_nothing(clock):
    """A guest sees the day's dice, a second guest replays them, then logs in: nothing is ranked."""
    for key in ("first-guest", "second-guest"):
        services.attempt_start(actor=Actor(guest_key=key, name="Guest"))
    anna = UserFactory(username="anna")
    assert services.claim_guest_attempts(user=anna, guest_key="second-guest") == 1
    assert not DailyAttempt.objects.filter(ranked=True).exists()
    assert [r.name for r in selectors.leaderboard(DAY)] == []


@pytest.mark.django_db(transaction=True)
def test_logins_claiming_guest_games_at_once_never_fail(clock):
    anna = UserFactory(username="anna")
    for key in ("tab-1", "tab-2", "tab-3", "tab-4"):
        services.attempt_start(actor=Actor(guest_key=key, name="Guest"))
    keys = ["tab-1", "tab-2", "tab-3", "tab-4"]
    results = race(4, lambda: services.claim_guest_attempts(user=anna, guest_key=keys.pop()))
    assert results == [1, 1, 1, 1]
    assert DailyAttempt.objects.filter(user=anna, ranked=False).count() == 4


def test_a_guests_attempt_stays_unranked_if_the_account_has_played_that_day(clock, client):
    anna = UserFactory()
    ranked, _ = services.attempt_start(actor=actor(anna))
    client.post("/daily/play/")
    guest = DailyAttempt.objects.get(user__isnull=True)

    client.post("/accounts/login/", {"username": anna.username, "password": PASSWORD})
    guest.refresh_from_db()
    ranked.refresh_from_db()
    assert guest.user == anna and not guest.ranked and ranked.ranked
    assert services.attempt_of(actor(anna), DAY).pk == ranked.pk


# -- no hints --------------------------------------------------------------------------------------------


def test_hints_are_refused_and_not_offered(clock):
    anna = UserFactory()
    attempt, _ = services.attempt_start(actor=actor(anna))
    client = client_for(anna)
    page = client.get(f"/games/{attempt.game_id}/").content.decode()
    assert 'data-action="hints"' not in page
    before = Game.objects.get(pk=attempt.game_id).version
    with pytest.raises(GameActionError, match="no hints") as refused:
        play.game_set_hints(game_id=attempt.game_id, actor=actor(anna), on=True)
    assert refused.value.status == 409
    response = client.post(f"/games/{attempt.game_id}/hints/", {"on": "1"}, headers={"HX-Request": "true"})
    assert response.status_code == 409 and "no hints in the daily challenge" in response.content.decode()
    game = Game.objects.get(pk=attempt.game_id)
    assert game.version == before and not game.hints_used
    assert not Player.objects.get(game=game).hints


# -- abandoning: closed at the day's end with what was written -------------------------------------------


def test_an_unfinished_game_is_closed_by_the_clock_when_the_day_ends(clock):
    anna = UserFactory()
    game = play_daily(actor(anna), turns=4)
    t = current(game.pk)
    play.turn_roll(game_id=game.pk, actor=actor(anna), turn=t.number, roll=0)  # a turn in play
    written = dict(Player.objects.get(game=game).boxes)
    assert len(written) == 4
    clock.set(DAY_END - dt.timedelta(seconds=1))
    assert services.close_ended() == 0
    clock.set(DAY_END)

    game_clock.sweep(force=True)  # the sweep's daily close runs with the minute's sweeps
    game.refresh_from_db()
    seat = Player.objects.get(game=game)
    assert game.is_finished and seat.boxes == written and seat.total == sum(written.values())
    assert seat.left_at == DAY_END
    assert not Turn.objects.filter(game=game, completed_at__isnull=True).exists()
    assert services.close_ended() == 0


def test_an_action_after_the_day_ends_closes_the_game_and_changes_nothing_else(clock):
    anna = UserFactory()
    game = play_daily(actor(anna), turns=2)
    written = dict(Player.objects.get(game=game).boxes)
    clock.set(DAY_END + dt.timedelta(seconds=5))
    t = current(game.pk)
    with pytest.raises(GameActionError, match="over"):
        play.turn_roll(game_id=game.pk, actor=actor(anna), turn=t.number, roll=0)
    game.refresh_from_db()
    assert game.is_finished and Player.objects.get(game=game).boxes == written


def test_reading_the_days_results_closes_its_abandoned_games(clock):
    anna, ben = UserFactory(), UserFactory()
    play_daily(actor(anna))
    abandoned = play_daily(actor(ben), turns=3)
    clock.set(DAY_END + dt.timedelta(hours=1))
    page = client_for(anna).get(f"/daily/{DAY.isoformat()}/").content.decode()
    abandoned.refresh_from_db()
    assert abandoned.is_finished
    assert 'data-board="site"' in page and "data-rank=" in page


# -- the seed stays secret until the day ends ------------------------------------------------------------


def test_nothing_shows_the_seed_before_the_day_ends_and_everything_after(clock):
    anna = UserFactory(username="anna")
    game = play_daily(actor(anna))
    seed = game.seed
    client = client_for(anna)
    pages = [
        f"/games/{game.pk}/",
        f"/games/{game.pk}/review/",
        f"/games/{game.pk}/review/?line=optimal&step=3",
        f"/games/{game.pk}/export.json",
        "/daily/",
        "/daily/commitments/",
        "/daily/all-time/",
        "/",
        "/games/",
        f"/players/{anna.username}/",
    ]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        assert seed not in response.content.decode(), url
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "data-seed-secret-until" in page and "data-daily-results" in page
    review = client.get(f"/games/{game.pk}/review/?line=optimal&step=3").content.decode()
    assert "data-optimal-turn" not in review and "data-optimal-link" not in review
    assert "data-optimal-secret-until" in review
    par = services.day_par(DAY)
    assert f'data-optimal-total="{par}"' in review  # the par total is shown, the line is not
    export = json.loads(client.get(f"/games/{game.pk}/export.json").content)
    assert export["seed"] is None and export["seed_commitment"] == game.seed_commitment
    assert (
        export["daily"]["date"] == DAY.isoformat() and export["daily"]["commitment"] == game.seed_commitment
    )
    assert export["analysis"]["seats"]["1"]["optimal"] == {"total": par}
    with pytest.raises(CommandError, match=r"revealed .*when the day ends"):
        call_command("verify_game", str(game.pk))

    clock.set(DAY_END)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert f'<code class="hash" data-seed>{seed}</code>' in page
    export = json.loads(client.get(f"/games/{game.pk}/export.json").content)
    assert export["seed"] == seed and len(export["analysis"]["seats"]["1"]["optimal"]["turns"]) == 13
    review = client.get(f"/games/{game.pk}/review/?line=optimal&step=3").content.decode()
    assert "data-optimal-turn" in review and "data-optimal-secret-until" not in review
    assert seed in client.get("/daily/commitments/").content.decode()


def test_verify_game_reproduces_a_daily_games_dice_after_the_day(clock, capsys):
    anna = UserFactory()
    game = play_daily(actor(anna), holds=((2, 4), (1,)))
    clock.set(DAY_END + dt.timedelta(minutes=1))
    call_command("verify_game", str(game.pk))
    out = capsys.readouterr().out
    assert f"seed {game.seed}" in out and "all 39 rolls of 13 turns follow from the seed" in out


# -- results: ranks, histogram, par, share text, streaks, leaderboards --------------------------------------


def test_ranks_histogram_par_and_share_text(clock):
    services.publish_commitments()
    me, friend, other, hidden = (UserFactory(username=n) for n in ("me", "friend", "other", "hidden"))
    befriend(me, friend)
    Profile.objects.update_or_create(user=other, defaults={"leaderboard_opt_in": True})
    boxes = {"ONES": 3, "TWOS": 2, "THREES": 0, "FULL_HOUSE": 25, "CHANCE": 24, "THREE_OF_A_KIND": 12}
    mine = made_up_result(me, DAY, 230, boxes=boxes)
    made_up_result(friend, DAY, 250)
    made_up_result(other, DAY, 260)
    made_up_result(hidden, DAY, 120)
    made_up_result(UserFactory(), DAY, 230)  # an equal total shares the place
    result = selectors.day_result(mine, friend_ids={friend.pk}, share_url="http://testserver/daily/")
    assert (result.rank, result.of) == (3, 5)
    assert (result.friends_rank, result.friends_of) == (2, 2)
    par = optimal_line(
        Strategy.shared(), DailySeed.objects.get(date=DAY).seed, DAY.isoformat(), seat=0, seat_count=1
    )
    assert result.par == par["total"] == DailySeed.objects.get(date=DAY).par
    # The histogram: bars of 25 points, the one of 230 (the 225 bar) highlighted with two players.
    assert result.histogram.count('class="chart-bar highlight"') == 1
    assert "<title>225: 2</title></rect>" in result.histogram.replace('class="chart-bar highlight" ', "")
    lines = result.share_text.split("\n")
    assert lines[0] == f"Penta daily 2026-06-10: 230 (par {par['total']})"
    # Ones 3 (three of its face: well), Twos 2 (scored), Threes 0, Fours-Sixes empty; Three of a kind 12
    # (scored), Four of a kind empty, Full house 25 (well), straights empty, Chance 24 (well), Penta empty.
    w, s, z = selectors.SHARE_WELL, selectors.SHARE_SCORED, selectors.SHARE_ZERO
    assert lines[1] == w + s + z + z + z + z + s + z + w + z + z + w + z and len(lines[1]) == 13
    assert lines[2] == "http://testserver/daily/"
    assert "230" not in lines[1] and not any(ch.isdigit() for ch in lines[1])

    html = client_for(me).get("/daily/").content.decode()
    assert (
        'data-rank="3"' in html and 'data-friends-rank="2"' in html and f'data-par="{par["total"]}"' in html
    )
    assert "data-share-text" in html and 'data-copy-link="#daily-share-text"' in html
    assert "data-par-rule" in html and "the box that comes first on the sheet" in html
    site = html.split('data-board="site"')[1]
    assert (
        'data-user="other"' in site and 'data-user="hidden"' not in site and 'data-user="friend"' not in site
    )
    friends = html.split('data-board="friends"')[1].split('data-board="site"')[0]
    assert (
        'data-user="friend"' in friends and 'data-user="me"' in friends and 'data-user="other"' not in friends
    )
    assert "style=" not in html


def test_todays_leaderboard_waits_until_you_have_played(clock, client):
    services.publish_commitments()
    made_up_result(UserFactory(), DAY, 250)
    html = client.get("/daily/").content.decode()
    assert "data-boards-closed" in html and 'data-played="1"' in html and "data-user=" not in html


def test_streaks_and_best_days(clock):
    anna = UserFactory(username="anna")
    for offset, total in ((0, 200), (1, 250), (2, 180), (4, 300), (5, 100), (6, 90), (7, 95)):
        made_up_result(anna, DAY - dt.timedelta(days=offset), total)
    made_up_result(anna, DAY - dt.timedelta(days=9), 400, ranked=False)  # unranked: no streak, not best
    streak = standings.streaks(anna.pk)
    assert (streak.current, streak.best, streak.days) == (3, 4, 7)
    clock.set(NOON + dt.timedelta(days=1))  # tomorrow, not played yet: the run still stands
    assert standings.streaks(anna.pk).current == 3
    clock.set(NOON + dt.timedelta(days=2))
    assert standings.streaks(anna.pk).current == 0
    best = standings.best_days(anna.pk)
    assert [b.total for b in best] == [300, 250, 200, 180, 100]
    html = client_for(anna).get("/players/anna/").content.decode()
    assert 'data-streak="best">4<' in html and 'data-streak="current">0<' in html and "data-best-days" in html


def test_the_all_time_table_of_average_against_par(clock):
    services.publish_commitments(NOON - dt.timedelta(days=5))
    services.publish_commitments()
    pars = {}
    for d in range(1, 5):
        date = DAY - dt.timedelta(days=d)
        DailySeed.objects.filter(date=date).update(par=250 + d)
        pars[date] = 250 + d
    anna, ben, cleo = (UserFactory(username=n) for n in ("anna", "ben", "cleo"))
    for u in (anna, ben, cleo):
        Profile.objects.update_or_create(user=u, defaults={"leaderboard_opt_in": True})
    for d in range(1, 4):
        date = DAY - dt.timedelta(days=d)
        made_up_result(anna, date, pars[date] - 10)
        made_up_result(ben, date, pars[date] + 5)
    made_up_result(cleo, DAY - dt.timedelta(days=1), 400)  # one day: below the minimum
    made_up_result(anna, DAY, 500)  # today has not ended: not in the table yet
    rows = standings.all_time(user_ids=None)
    assert [(r.name, r.days, r.vs_par) for r in rows] == [("ben", 3, 5.0), ("anna", 3, -10.0)]
    html = client_for(anna).get("/daily/all-time/").content.decode()
    assert 'data-vs-par="5.0"' in html and 'data-vs-par="-10.0"' in html and 'data-user="cleo"' not in html


def test_the_home_page_card_and_the_finished_game_link_to_the_results(clock):
    anna = UserFactory()
    client = client_for(anna)
    assert 'data-action="daily-open"' in client.get("/").content.decode()
    game = play_daily(actor(anna), turns=1)
    assert 'data-action="daily-resume"' in client.get("/").content.decode()
    for _ in range(12):
        play_daily_turn(game.pk, actor(anna))
    assert 'data-action="daily-results"' in client.get("/").content.decode()
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert f'href="/daily/{DAY.isoformat()}/"' in page
    assert client.get(f"/daily/{DAY.isoformat()}/")["Location"] == "/daily/"


def test_a_daily_game_is_named_with_its_date_in_the_header_and_the_lists(clock):
    anna = UserFactory()
    client = client_for(anna)
    game = play_daily(actor(anna), turns=1)
    label = f"Daily challenge {DAY.isoformat()}"
    assert f'<span class="game-kind">{label}</span>' in client.get(f"/games/{game.pk}/").content.decode()
    assert label in client.get("/games/").content.decode()
    dutch = client_for(anna, language="nl").get(f"/games/{game.pk}/").content.decode()
    assert f"Dagelijkse uitdaging {DAY.isoformat()}" in dutch


def test_a_future_or_bad_day_is_not_found(clock, client):
    assert client.get("/daily/2026-06-11/").status_code == 404
    assert client.get("/daily/yesterday/").status_code == 404


def test_the_calendars_first_and_last_days_are_answered(clock, client):
    first = client.get("/daily/0001-01-01/")
    assert first.status_code == 200 and 'data-day-link="prev"' not in first.content.decode()
    assert client.get("/daily/9999-12-31/").status_code == 404
    assert 'data-day-link="prev"' in client.get("/daily/0001-01-02/").content.decode()


def test_the_pages_speak_dutch(clock):
    anna = UserFactory()
    play_daily(actor(anna))
    client = client_for(anna, language="nl")
    html = client.get("/daily/").content.decode()
    assert "Dagelijkse uitdaging" in html and "Jouw resultaat" in html and "Kopieer" in html
    assert "Dagelijkse uitdaging" in client.get("/").content.decode()
    assert "Dagelijkse uitdaging: alle dagen" in client.get("/daily/all-time/").content.decode()


# -- the socket ------------------------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_game_socket_never_carries_the_seed_and_nothing_is_pushed():

    @database_sync_to_async
    def setup():
        anna = UserFactory()
        attempt, _ = services.attempt_start(actor=actor(anna))
        return anna, attempt.game

    @database_sync_to_async
    def finish(game, anna):
        for _ in range(13):
            play_daily_turn(game.pk, actor(anna))
        return Game.objects.get(pk=game.pk).is_finished

    anna, game = await setup()
    socket, ok, _code = await open_game_socket(game.pk, anna)
    assert ok
    board = await socket.receive_from(timeout=5)
    assert f'data-game="{game.pk}"' in board or "game-status" in board
    assert game.seed not in board
    assert await finish(game, anna)
    # A solo game's screen is updated by the answers to its own requests: nothing is pushed.
    assert await socket.receive_nothing(timeout=0.5)
    await socket.send_to(text_data=json.dumps({"action": "sync"}))
    frame = await socket.receive_from(timeout=5)
    assert game.seed not in frame
    await socket.disconnect()


def test_a_guests_finished_game_is_placed_unranked(clock, client):
    services.publish_commitments()
    made_up_result(UserFactory(), DAY, 1000)
    client.post("/daily/play/")
    attempt = DailyAttempt.objects.get(user__isnull=True)
    guest = Actor(guest_key=attempt.guest_key)
    for _ in range(13):
        play_daily_turn(attempt.game_id, guest)
    html = client.get("/daily/").content.decode()
    assert "data-unranked" in html and 'data-rank="2"' in html and "2 of 2" in html
    assert "data-friends-rank" not in html
    assert selectors.played_count(DAY) == 1  # the accounts' ranked attempts: the guest is not counted
