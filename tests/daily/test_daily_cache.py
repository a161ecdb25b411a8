"""The daily's pages are cached per change of what they show (`core.versions`), and a change shows at
once: an attempt finished or started on the day's page, someone marked or cleared for fair play on its
boards, a day gone by and an attempt closed late in the all-time table, today's start in the player's
streak; each viewer's own parts are theirs, in English and in Dutch."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from accounts.models import Profile
from accounts.services import profile_set_leaderboard_opt_in
from core import versions
from daily import services
from daily.models import DailySeed
from dicegame import play
from dicegame.models import Game, Player
from dicegame.strategy import computer
from fairplay import services as fairplay
from fairplay.models import Case
from tests.support.clock import Clock
from tests.support.factories import UserFactory, actor, befriend, client_for
from tests.support.games import current

pytestmark = pytest.mark.django_db

UTC = dt.UTC
NOON = dt.datetime(2026, 6, 10, 10, 0, tzinfo=UTC)  # 12:00 in Amsterdam
DAY = dt.date(2026, 6, 10)


@pytest.fixture
def clock(monkeypatch):
    return Clock(monkeypatch, NOON)


def start(user) -> Game:
    attempt, _created = services.attempt_start(actor=actor(user))
    return Game.objects.get(pk=attempt.game_id)


def finish(user, turns: int = 2) -> int:
    """Today's attempt through the services: a few turns (one roll, the auto-commit's box), then resigned
    (the game ends as it stands). Returns the total."""
    game = start(user)
    who = actor(user)
    for _ in range(turns):
        t = current(game.pk)
        play.turn_roll(game_id=game.pk, actor=who, turn=t.number, roll=0)
        t = current(game.pk)
        box = computer.auto_commit_box(t.player.sheet, tuple(t.dice))
        play.turn_choose_box(game_id=game.pk, actor=who, turn=t.number, roll=1, box=box.name)
        play.turn_confirm(game_id=game.pk, actor=who, turn=t.number, roll=1)
    play.game_resign(game_id=game.pk, actor=who)
    return Player.objects.get(game=game).total


def site_board(html: str) -> str:
    return html.split('data-board="site"')[1]


def marked_rows(html: str) -> dict[str, bool]:
    """data-user -> whether the row is marked as the viewer's own."""
    rows = {}
    for tag in re.findall(r"<tr\b[^>]*>", html):
        user = re.search(r'data-user="([^"]*)"', tag)
        if user:
            rows[user.group(1)] = bool(re.search(r'class="[^"]*\bme\b', tag))
    return rows


def behind_the_services(user, total: int) -> None:
    """A total changed with no service (nothing moves the versions): a cached page still shows the old."""
    Player.objects.filter(game__daily_attempt__user=user).update(total=total)


def public(*users) -> None:
    for user in users:
        profile_set_leaderboard_opt_in(user=user, on=True)


def test_a_finished_attempt_is_on_the_days_page_at_once(clock):
    me, friend, stranger = (UserFactory(username=n) for n in ("me", "friend", "stranger"))
    befriend(me, friend)
    public(me, stranger)
    mine = finish(me)
    client = client_for(me)
    html = client.get("/daily/").content.decode()
    assert f'data-total="{mine}"' in site_board(html)
    # The boards are cached: a total changed behind the services' back is not read again...
    behind_the_services(me, 999)
    assert 'data-total="999"' not in site_board(client.get("/daily/").content.decode())
    # ...but an attempt finished through them shows at once, on every board it belongs to.
    finish(friend, turns=3)
    finish(stranger, turns=4)
    html = client.get("/daily/").content.decode()
    friends = html.split('data-board="friends"')[1].split('data-board="site"')[0]
    assert 'data-user="friend"' in friends and 'data-user="stranger"' not in friends
    assert 'data-user="stranger"' in site_board(html) and 'data-user="friend"' not in site_board(html)
    # Each viewer's own row is theirs: the stranger sees their row marked, and mine not.
    theirs = marked_rows(site_board(client_for(stranger).get("/daily/").content.decode()))
    assert theirs == {"stranger": True, "me": False} or theirs == {"me": False, "stranger": True}
    assert marked_rows(site_board(client.get("/daily/").content.decode())) == {"stranger": False, "me": True}
    # A new friend is on my friends' board at once, though the day did not change.
    befriend(me, stranger)
    friends = (
        client.get("/daily/").content.decode().split('data-board="friends"')[1].split('data-board="site"')[0]
    )
    assert 'data-user="stranger"' in friends and 'data-user="friend"' in friends


def test_my_attempt_on_the_days_page_follows_its_start_and_its_end_at_once(clock):
    """The viewer's attempt is kept under the versions of the day and the person: its start and its
    game's end move them, so the page never shows the one before (though it reads no attempt again)."""
    me = UserFactory(username="me")
    versions.bump(versions.user(me.pk))  # as a game they finished did: what is read for them is kept
    client = client_for(me)
    assert 'data-action="daily-play"' in client.get("/daily/").text
    game = start(me)
    for _ in range(2):  # the second view reads the attempt kept under the versions
        html = client.get("/daily/").text
        assert 'data-action="daily-resume"' in html and f"/games/{game.pk}/" in html
    play.game_resign(game_id=game.pk, actor=actor(me))
    total = Player.objects.get(game=game).total
    for _ in range(2):
        html = client.get("/daily/").text
        assert 'data-action="daily-resume"' not in html and f'data-daily-total="{total}"' in html
    # Nothing else of the attempt is read again: a change behind the services' back is not seen.
    behind_the_services(me, 999)
    assert f'data-daily-total="{total}"' in client.get("/daily/").text


def test_a_started_attempt_counts_at_once_and_the_boards_wait_for_ones_own_result(clock, client):
    finish(UserFactory())
    assert 'data-played="1"' in client.get("/daily/").content.decode()
    start(UserFactory())
    html = client.get("/daily/").content.decode()
    assert 'data-played="2"' in html and "data-boards-closed" in html and "data-user=" not in html


def test_marked_and_cleared_accounts_leave_and_rejoin_the_days_boards_at_once(clock, admin_user):
    me, cheat = UserFactory(username="me"), UserFactory(username="cheat")
    public(me, cheat)
    finish(me)
    finish(cheat, turns=3)
    client = client_for(me)
    assert 'data-user="cheat"' in site_board(client.get("/daily/").content.decode())
    case = Case.objects.create(user=cheat, status=Case.Status.FLAGGED)
    fairplay.mark(case.pk, by=admin_user)
    assert 'data-user="cheat"' not in site_board(client.get("/daily/").content.decode())
    # Marked: off the boards even to themselves.
    assert 'data-user="cheat"' not in site_board(client_for(cheat).get("/daily/").content.decode())
    fairplay.clear(case.pk, by=admin_user)
    assert 'data-user="cheat"' in site_board(client.get("/daily/").content.decode())
    # Someone under review sees their own row (and only they do): as fair play's flag sets it.
    Profile.objects.filter(user=cheat).update(standing=Profile.Standing.REVIEW)
    versions.bump(versions.PEOPLE)
    assert 'data-user="cheat"' not in site_board(client.get("/daily/").content.decode())
    assert 'data-user="cheat"' in site_board(client_for(cheat).get("/daily/").content.decode())


def test_an_opt_in_shows_on_the_days_site_board_at_once(clock):
    me, shy = UserFactory(username="me"), UserFactory(username="shy")
    public(me)
    finish(me)
    finish(shy)
    client = client_for(me)
    assert 'data-user="shy"' not in site_board(client.get("/daily/").content.decode())
    public(shy)
    assert 'data-user="shy"' in site_board(client.get("/daily/").content.decode())


def test_the_cached_boards_speak_the_viewers_language(clock):
    me = UserFactory(username="me")
    public(me)
    finish(me)
    english = client_for(me).get("/daily/").content.decode()
    dutch = client_for(me, language="nl").get("/daily/").content.decode()
    assert '<th scope="col">Player</th>' in site_board(english)
    assert '<th scope="col">Speler</th>' in site_board(dutch) and "Player</th>" not in site_board(dutch)


def test_the_all_time_table_takes_a_day_gone_and_a_late_close_at_once(clock):
    anna, ben = UserFactory(username="anna"), UserFactory(username="ben")
    public(anna, ben)
    for _ in range(3):
        finish(anna)
        clock.advance(days=1)
    client = client_for(ben)
    html = client.get("/daily/all-time/").content.decode()
    assert 'data-user="anna"' in html and 'data-user="ben"' not in html
    # Ben played two days; his third is started today and left unfinished.
    clock.advance(days=-2)
    finish(ben)
    clock.advance(days=1)
    finish(ben)
    clock.advance(days=1)
    start(ben)
    assert 'data-user="ben"' not in client.get("/daily/all-time/").content.decode()
    # The next day: the unfinished attempt of the day gone is closed (by reading its day, or by the
    # clock) and counts at once.
    clock.advance(days=1)
    assert 'data-user="ben"' not in client.get("/daily/all-time/").content.decode()  # not closed yet
    services.close_ended()
    html = client.get("/daily/all-time/").content.decode()
    assert 'data-user="ben"' in html and 'data-user="anna"' in html


def test_a_started_attempt_is_in_the_players_streak_at_once(clock):
    anna = UserFactory(username="anna")
    finish(anna)
    clock.advance(days=1)
    client = client_for(anna)
    assert 'data-streak="current">1<' in client.get("/players/anna/").content.decode()
    start(anna)
    html = client.get("/players/anna/").content.decode()
    assert 'data-streak="current">2<' in html and 'data-streak="days">2<' in html


def test_the_days_par_is_stored_when_its_results_are_first_worked_out(clock):
    me = UserFactory(username="me")
    public(me)
    finish(me)
    DailySeed.objects.filter(date=DAY).update(par=None)  # a day whose par was never worked out
    versions.bump(versions.day(DAY))
    client = client_for(me)
    html = client.get("/daily/").content.decode()
    par = DailySeed.objects.get(date=DAY).par
    assert par is not None and f"(par {par})" in html
    # Storing it moved the day's version on: the results worked out with it are kept under the new one.
    behind_the_services(me, 999)
    assert 'data-total="999"' not in site_board(client.get("/daily/").content.decode())


def test_an_opt_in_changed_in_the_admin_shows_at_once(clock, admin_client):
    me, shy = UserFactory(username="me"), UserFactory(username="shy")
    public(me)
    finish(me)
    finish(shy)
    client = client_for(me)
    assert 'data-user="shy"' not in site_board(client.get("/daily/").content.decode())
    staff = admin_client
    profile, _created = Profile.objects.get_or_create(user=shy)
    form = {
        "user": shy.pk,
        "standing": "good",
        "leaderboard_opt_in": "on",
        "last_seen_0": "",
        "last_seen_1": "",
    }
    response = staff.post(f"/admin/accounts/profile/{profile.pk}/change/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert 'data-user="shy"' in site_board(client.get("/daily/").content.decode())
    response = staff.post(f"/admin/accounts/profile/{profile.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert 'data-user="shy"' not in site_board(client.get("/daily/").content.decode())


def test_the_days_page_seen_again_reads_little(clock, django_assert_max_num_queries):
    """Seen again with nothing changed: the session, the account, the seeds shown, the versions (the
    viewer's attempt and result are kept under them), their friends, and the play screen's turn count."""
    me, friend = UserFactory(username="me"), UserFactory(username="friend")
    befriend(me, friend)
    public(me, friend)
    finish(me)
    finish(friend, turns=3)
    client = client_for(me)
    client.get("/daily/")
    with django_assert_max_num_queries(6):
        html = client.get("/daily/").content.decode()
    assert 'data-user="friend"' in site_board(html)
