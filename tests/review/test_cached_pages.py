"""The player page and the leaderboards are cached per change of what they show (`core.versions`),
and a change shows at once: a finished game, its analysis, a rated game and a refund on the player page;
a friend's or an opted-in player's game, an opt-in, a marking on the boards. Each viewer's own rows are
theirs; English and Dutch are cached apart."""

from __future__ import annotations

import re

import pytest

from accounts.services import profile_set_leaderboard_opt_in
from core import versions
from dicegame import play
from dicegame.models import Game, Player
from fairplay import services as fairplay
from fairplay.models import Case
from tests.support.factories import UserFactory, actor, befriend, client_for
from tests.support.games import play_turn, started_two_player_game
from tests.support.history import sheet_with, stats_game
from tests.support.ratings import play_out, rated_room

pytestmark = pytest.mark.django_db


def solo(user) -> Game:
    """A solo game finished through the services (the versions move with it)."""
    game = play.game_create_solo(actor=actor(user))
    for _ in range(13):
        play_turn(game, user)
    game.refresh_from_db()
    assert game.is_finished
    return game


def against(a, b) -> Game:
    """A game of two friends finished through the services."""
    game = started_two_player_game(a, b, turn_seconds=0)
    for _ in range(13):
        play_turn(game, a)
        play_turn(game, b)
    game.refresh_from_db()
    assert game.is_finished
    return game


def stat(html: str, name: str) -> str:
    return re.search(rf'data-stat="{name}">([^<]*)<', html).group(1)


def board(html: str, key: str) -> dict[str, bool]:
    """The rows of one leaderboard: data-user -> whether it is marked as the viewer's own."""
    section = html.split(f'data-board="{key}"')[1].split("</section>")[0]
    rows = {}
    for tag in re.findall(r"<tr\b[^>]*>", section):
        user = re.search(r'data-user="([^"]*)"', tag)
        if user:
            rows[user.group(1)] = bool(re.search(r'class="[^"]*\bme\b', tag))
    return rows


def analysed(html: str) -> str:
    return re.search(r"(\d+) games? analysed", html).group(1)


def test_the_player_page_shows_a_finished_game_and_its_analysis_at_once():
    anna = UserFactory(username="anna")
    solo(anna)  # (its analysis waits for the commit: the page asks for it)
    client = client_for(anna)
    html = client.get("/players/anna/").content.decode()
    # The page analysed the game and counts it in the same view.
    assert stat(html, "games") == "1" and analysed(html) == "1"
    # Cached: a game written behind the services' back is not counted...
    stats_game(anna, Game.Kind.SOLO, sheet_with(CHANCE=20))
    assert stat(client.get("/players/anna/").content.decode(), "games") == "1"
    # ...one finished through them is, at once (both then), and so are their analyses.
    solo(anna)
    html = client.get("/players/anna/").content.decode()
    assert stat(html, "games") == "3" and analysed(html) == "3"


def test_head_to_head_and_the_recent_games_take_a_shared_game_at_once():
    anna, ben = UserFactory(username="anna"), UserFactory(username="ben")
    befriend(anna, ben)
    against(anna, ben)
    client = client_for(ben)
    html = client.get("/players/anna/").content.decode()
    # From Ben's side: his record against Anna.
    assert re.search(r'data-opponent="anna".*?data-games>1<', html, re.S)
    assert html.count("Review game") == 1
    against(anna, ben)
    html = client.get("/players/anna/").content.decode()
    assert re.search(r'data-opponent="anna".*?data-games>2<', html, re.S)
    assert html.count("Review game") == 2
    # Anna's own page: head to head against each friend, from her side.
    own = client_for(anna).get("/players/anna/").content.decode()
    assert re.search(r'data-opponent="ben".*?data-games>2<', own, re.S)
    # A new friend is a new row at once, though none of her games changed.
    befriend(anna, UserFactory(username="cleo"))
    own = client_for(anna).get("/players/anna/").content.decode()
    assert 'data-opponent="cleo"' in own and 'data-opponent="ben"' in own


def test_the_rating_section_takes_a_rated_game_and_a_refund_at_once(strategy, admin_user):
    anna, ben, cheat = (
        UserFactory(username="anna"),
        UserFactory(username="ben"),
        UserFactory(username="cheat"),
    )
    befriend(anna, ben)
    play_out(rated_room(anna, [ben]), [anna, ben])
    client = client_for(anna)
    html = client.get("/players/anna/").content.decode()
    assert len(re.findall(r'<tr data-game="\d+">', html)) == 1 and "data-rating-refunded" not in html
    befriend(anna, cheat)
    play_out(rated_room(cheat, [anna]), [cheat, anna], worst=[anna])
    html = client.get("/players/anna/").content.decode()
    assert len(re.findall(r'<tr data-game="\d+">', html)) == 2
    # Her loss to an account then marked is refunded: the section says so at once.
    fairplay.mark(Case.objects.create(user=cheat, status=Case.Status.FLAGGED).pk, by=admin_user)
    assert "data-rating-refunded" in client.get("/players/anna/").content.decode()


def games_on_best(html: str, user: str) -> int:
    section = html.split('data-board="best"')[1].split("</section>")[0]
    return int(re.search(rf'data-user="{user}".*?<td>(\d+)</td></tr>', section, re.S).group(1))


def test_a_friends_game_is_on_the_friends_boards_at_once_and_each_viewer_sees_their_own_row():
    anna, ben, cleo = (UserFactory(username=n) for n in ("anna", "ben", "cleo"))
    befriend(anna, ben)
    befriend(anna, cleo)
    solo(anna)
    solo(ben)
    client = client_for(anna)
    assert board(client.get("/leaderboard/").content.decode(), "best") == {"anna": True, "ben": False}
    solo(cleo)
    rows = board(client.get("/leaderboard/").content.decode(), "best")
    assert set(rows) == {"anna", "ben", "cleo"} and rows["anna"] and not rows["cleo"]
    solo(cleo)  # her second game: counted at once
    assert games_on_best(client.get("/leaderboard/").content.decode(), "cleo") == 2
    # Cleo's friends are only Anna: her boards are her own, her row hers.
    theirs = board(client_for(cleo).get("/leaderboard/").content.decode(), "best")
    assert set(theirs) == {"anna", "cleo"} and theirs["cleo"] and not theirs["anna"]


def test_the_site_wide_boards_take_a_game_an_opt_in_and_a_marking_at_once(admin_user):
    anna, ben, shy = (UserFactory(username=n) for n in ("anna", "ben", "shy"))
    for user in (anna, ben):
        profile_set_leaderboard_opt_in(user=user, on=True)
    solo(anna)
    viewer = client_for(UserFactory())
    assert set(board(viewer.get("/leaderboard/?scope=site").content.decode(), "best")) == {"anna"}
    # Cached: a total changed behind the services' back is not read again.
    Player.objects.filter(user=anna).update(total=999)
    assert 'data-value="999"' not in viewer.get("/leaderboard/?scope=site").content.decode()
    solo(ben)
    solo(shy)
    assert set(board(viewer.get("/leaderboard/?scope=site").content.decode(), "best")) == {"anna", "ben"}
    profile_set_leaderboard_opt_in(user=shy, on=True)
    assert set(board(viewer.get("/leaderboard/?scope=site").content.decode(), "best")) == {
        "anna",
        "ben",
        "shy",
    }
    fairplay.mark(Case.objects.create(user=ben, status=Case.Status.FLAGGED).pk, by=admin_user)
    assert set(board(viewer.get("/leaderboard/?scope=site").content.decode(), "best")) == {"anna", "shy"}
    # Each viewer's own row is theirs on the shared board.
    mine = board(client_for(shy).get("/leaderboard/?scope=site").content.decode(), "best")
    assert mine == {"anna": False, "shy": True}


def test_someone_under_review_sees_their_own_rows_and_nobody_else_does():
    anna, sly = UserFactory(username="anna"), UserFactory(username="sly")
    befriend(anna, sly)
    for user in (anna, sly):
        profile_set_leaderboard_opt_in(user=user, on=True)
        solo(user)
    for scope in ("friends", "site"):
        assert "sly" in board(client_for(anna).get(f"/leaderboard/?scope={scope}").content.decode(), "best")
    sly.profile.standing = sly.profile.Standing.REVIEW
    sly.profile.save(update_fields=["standing"])
    versions.bump(versions.PEOPLE)  # as fair play's flag does
    for scope in ("friends", "site"):
        assert set(board(client_for(anna).get(f"/leaderboard/?scope={scope}").content.decode(), "best")) == {
            "anna"
        }
        assert board(client_for(sly).get(f"/leaderboard/?scope={scope}").content.decode(), "best") == {
            "anna": False,
            "sly": True,
        }


def test_english_and_dutch_pages_are_cached_apart():
    anna = UserFactory(username="anna")
    profile_set_leaderboard_opt_in(user=anna, on=True)
    solo(anna)
    for language, words in (
        ("en", ("Finished games", "Games</th>")),
        ("nl", ("Afgelopen spellen", "Spellen</th>")),
    ):
        client = client_for(anna, language=language)
        page, boards = (
            client.get("/players/anna/").content.decode(),
            client.get("/leaderboard/").content.decode(),
        )
        assert words[0] in page and words[1] in boards, language


def test_the_leaderboards_say_whether_the_viewer_is_on_the_site_wide_boards():
    """Read for each viewer: each gets their own."""
    shy, keen = UserFactory(username="shy"), UserFactory(username="keen")
    profile_set_leaderboard_opt_in(user=keen, on=True)
    site = "/leaderboard/?scope=site"
    assert "You are one of them." in client_for(keen).get(site).text
    page = client_for(shy).get(site).text
    assert "You are one of them." not in page and "Join from your statistics page." in page
    profile_set_leaderboard_opt_in(user=shy, on=True)
    profile_set_leaderboard_opt_in(user=keen, on=False)
    assert "You are one of them." in client_for(shy).get(site).text
    assert "Join from your statistics page." in client_for(keen).get(site).text
