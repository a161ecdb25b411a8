"""A player's statistics, head to head, leaderboards, privacy, and bounded queries over big histories."""

from __future__ import annotations

import math
import re

import pytest

from accounts.models import Profile
from core import charts
from dicegame.models import Game, GameAnalysis
from dicegame.rules import dice
from dicegame.rules.scoring import Box
from dicegame.strategy import analysis as A
from review import head_to_head, yardsticks
from review import leaderboards as boards_module
from review import stats as statistics
from tests.support.factories import UserFactory, befriend
from tests.support.games import make_game
from tests.support.history import (
    bulk_history,
    sheet_with,
    stats_game,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def history(user):
    friend = UserFactory(username="fran")
    befriend(user, friend)
    # solo 150 (upper 63 -> bonus), computer win 120, friends loss, friends shared win, Penta + bonus
    upper63 = sheet_with(ONES=3, TWOS=6, THREES=9, FOURS=12, FIVES=15, SIXES=18, CHANCE=22)
    stats_game(user, Game.Kind.SOLO, upper63)
    stats_game(user, Game.Kind.COMPUTER, sheet_with(CHANCE=20, FULL_HOUSE=25), others=[(None, 30)])
    stats_game(user, Game.Kind.FRIENDS, sheet_with(CHANCE=10), others=[(friend, 60)])
    stats_game(user, Game.Kind.FRIENDS, sheet_with(LARGE_STRAIGHT=40), others=[(friend, 40)])
    stats_game(user, Game.Kind.SOLO, sheet_with(PENTA=50, SIXES=30), penta_bonus=100)
    return friend


def test_player_stats_by_kind_wins_totals_and_rates(user, history):
    stats = statistics.player_stats(user_id=user.pk)
    by_kind = {k.kind: k for k in stats.by_kind}
    assert stats.games == 5
    assert (by_kind["solo"].games, by_kind["computer"].games, by_kind["friends"].games) == (2, 1, 2)
    assert (by_kind["computer"].wins, by_kind["friends"].wins, by_kind["friends"].shared_wins) == (1, 0, 1)
    assert by_kind["solo"].wins == 0  # a solo game is no win
    assert stats.wins == 1 and stats.shared_wins == 1
    totals = [63 + 35 + 22, 45, 10, 40, 180]
    assert stats.best == 180 and stats.average == pytest.approx(sum(totals) / 5)
    assert stats.upper_bonus_rate == pytest.approx(1 / 5)
    assert stats.penta_rate == pytest.approx(1 / 5) and stats.pentas == 2
    boxes = {b.box: b for b in stats.boxes}
    assert boxes[Box.CHANCE].average == pytest.approx((22 + 20 + 10) / 5)
    assert boxes[Box.SIXES].average == pytest.approx((18 + 30) / 5)
    assert boxes[Box.PENTA].optimal == yardsticks.OPTIMAL_BOX_AVERAGES["PENTA"][0]
    assert "<svg" in stats.histogram and "<rect" in stats.histogram


def test_head_to_head_against_a_friend(user, history):
    [h2h] = head_to_head.head_to_head(user_id=user.pk, other_ids=[history.pk])
    assert (h2h.username, h2h.games, h2h.wins, h2h.losses, h2h.shared) == ("fran", 2, 0, 1, 1)
    assert h2h.my_average == pytest.approx(25) and h2h.their_average == pytest.approx(50)
    lonely = UserFactory()
    [none] = head_to_head.head_to_head(user_id=user.pk, other_ids=[lonely.pk])
    assert none.games == 0 and none.my_average is None


def test_accuracy_over_time_comes_from_the_analysed_games(user):
    for _ in range(3):
        make_game([user], kind=Game.Kind.SOLO, strengths=["easy"])
    bulk_history(user, 30, analysed=True)
    stats = statistics.player_stats(user_id=user.pk, catch_up=0)
    assert stats.analysed == 30 and stats.pending == 3
    assert stats.loss == pytest.approx(12 / 30)
    assert len(stats.trend_points) == statistics.TREND_BUCKETS and "<polyline" in stats.trend
    # A visit analyses the newest pending games.
    stats = statistics.player_stats(user_id=user.pk, catch_up=2)
    assert stats.analysed == 32 and stats.pending == 1
    assert stats.counts["best"] > 600


def test_the_player_page_shows_everything(user, user_client, history):
    make_game([user, "easy"])  # analysed on this visit
    html = user_client.get(f"/players/{user.username}/").content.decode()
    assert 'data-stat="games">6<' in html
    assert "data-head-to-head" in html and 'data-opponent="fran"' in html
    assert "data-boxes" in html and 'data-stat="loss"' in html
    assert "style=" not in html
    assert GameAnalysis.objects.count() == 6  # every finished game, the turnless ones as empty
    assert user_client.get("/players/").status_code == 302


def test_a_players_page_is_for_themselves_their_friends_and_everyone_if_they_opt_in(user, client, history):
    stranger = UserFactory()
    url = f"/players/{user.username}/"
    assert client.get(url).status_code == 404  # anonymous
    client.force_login(stranger)
    assert client.get(url).status_code == 404
    client.force_login(history)
    response = client.get(url)
    assert response.status_code == 200
    assert f'data-opponent="{user.username}"' in response.content.decode()  # the viewer's record
    assert client.get("/players/nobody-at-all/").status_code == 404
    # A private player and one who does not exist answer alike: the page tells no account's existence.
    client.force_login(stranger)
    private, unknown = client.get(url), client.get("/players/nobody-at-all/")
    assert private.status_code == unknown.status_code == 404
    said = [re.search(r'role="alert">([^<]*)<', a.content.decode()).group(1) for a in (private, unknown)]
    assert said == ["There is no such player."] * 2
    Profile.objects.create(user=user, leaderboard_opt_in=True)
    client.force_login(stranger)
    public = client.get(url)
    assert public.status_code == 200 and "data-head-to-head" not in public.content.decode()
    client.logout()
    assert client.get(url).status_code == 200


def test_opting_in_and_out(user, user_client):
    url = f"/players/{user.username}/leaderboard/"
    assert user_client.post(url, {"on": "1"}).status_code == 302
    assert Profile.objects.get(user=user).leaderboard_opt_in
    assert user_client.post(url, {"on": "0"}).status_code == 302
    assert not Profile.objects.get(user=user).leaderboard_opt_in
    for bad in ({"on": "yes"}, {}):
        assert user_client.post(url, bad).status_code == 400
    other = UserFactory()
    assert user_client.post(f"/players/{other.username}/leaderboard/", {"on": "1"}).status_code == 404
    assert not Profile.objects.filter(user=other).exists()
    assert user_client.get(url).status_code == 405


def test_friends_leaderboards(user, user_client, history):
    # The friend: 5 more games, a hints game that must not count, and one Penta.
    for _ in range(5):
        stats_game(
            history,
            Game.Kind.SOLO,
            sheet_with(
                CHANCE=30, LARGE_STRAIGHT=40, SMALL_STRAIGHT=30, FULL_HOUSE=25, PENTA=50, FOUR_OF_A_KIND=25
            ),
        )
    hinted = stats_game(
        history,
        Game.Kind.SOLO,
        sheet_with(
            CHANCE=30,
            PENTA=50,
            LARGE_STRAIGHT=40,
            SMALL_STRAIGHT=30,
            FULL_HOUSE=25,
            FOUR_OF_A_KIND=30,
            THREE_OF_A_KIND=30,
            SIXES=30,
        ),
    )
    Game.objects.filter(pk=hinted.pk).update(hints_used=True)
    boards = {b.key: b for b in boards_module.leaderboards(user_ids=[user.pk, history.pk], viewer_id=user.pk)}
    best = boards["best"].rows
    assert [r.username for r in best] == ["fran", user.username]
    assert best[0].value == 200 and best[1].value == 180 and best[1].is_me
    recent = boards["recent"].rows
    assert [r.username for r in recent] == ["fran", user.username]  # fran: 7 games, 5 at 200
    assert boards["pentas"].rows[0].username == "fran" and boards["pentas"].rows[0].value == 5
    assert boards["accuracy"].rows == []  # nobody has 5 analysed games
    html = user_client.get("/leaderboard/").content.decode()
    assert 'data-board="best"' in html and 'data-user="fran"' in html


def test_site_wide_leaderboard_shows_only_players_who_opted_in(user, client, history):
    shy = UserFactory(username="shy")
    stats_game(shy, Game.Kind.SOLO, sheet_with(CHANCE=30))
    Profile.objects.create(user=history, leaderboard_opt_in=True)
    html = client.get("/leaderboard/?scope=site").content.decode()
    assert (
        'data-user="fran"' in html
        and 'data-user="shy"' not in html
        and f'data-user="{user.username}"' not in html
    )
    # Anonymous visitors get the site-wide board whatever they ask for; bad scopes fall back.
    assert 'data-scope="site"' in client.get("/leaderboard/?scope=friends").content.decode()
    client.force_login(shy)
    for bad in ("", "all", "<script>", "friends%00"):
        response = client.get("/leaderboard/", {"scope": bad})
        assert response.status_code == 200 and 'data-scope="friends"' in response.content.decode()


def test_accuracy_board_needs_five_analysed_games(user):
    friend = UserFactory()
    bulk_history(user, 6, analysed=True, kinds=[Game.Kind.SOLO])
    bulk_history(friend, 4, analysed=True, kinds=[Game.Kind.SOLO])
    boards = {b.key: b for b in boards_module.leaderboards(user_ids=[user.pk, friend.pk], viewer_id=user.pk)}
    rows = boards["accuracy"].rows
    assert [(r.username, r.value, r.games) for r in rows] == [(user.username, A.accuracy(12.0, 13), 6)]


def test_stats_pages_queries_are_bounded_with_1000_games(user, user_client, django_assert_max_num_queries):
    friend = UserFactory()
    befriend(user, friend)
    bulk_history(user, 1000, opponent=friend, analysed=True)
    bulk_history(friend, 50, seed=1)
    # The player page: its statistics, plus one query each for the rating, the daily and the tournaments'
    # sections, and on every page the header's count of the games waiting for the person's move; the
    # cache versions it depends on, read once (the site-wide ones stored by their first reading: +2 in a
    # new database).
    with django_assert_max_num_queries(22):
        response = user_client.get(f"/players/{user.username}/")
    assert response.status_code == 200 and 'data-stat="games">1050<' not in response.content.decode()
    assert 'data-stat="games">1000<' in response.content.decode()
    # (+1: who is off the boards for fair play, part of the boards' cache key.)
    with django_assert_max_num_queries(12):
        assert user_client.get("/leaderboard/").status_code == 200
    with django_assert_max_num_queries(10):
        assert user_client.get("/games/export.csv").status_code == 200


def test_catch_up_analysis_is_bounded_too(user, user_client, django_assert_max_num_queries):
    bulk_history(user, 1000)  # none analysed yet
    with django_assert_max_num_queries(24):  # (+2: the site-wide cache versions' first reading)
        assert user_client.get(f"/players/{user.username}/").status_code == 200
    assert GameAnalysis.objects.count() == statistics.STATS_CATCH_UP


def test_optimal_box_averages_cover_every_box_and_agree_with_a_fresh_simulation():
    assert set(yardsticks.OPTIMAL_BOX_AVERAGES) == {b.name for b in Box}
    games = 60
    fresh = yardsticks.optimal_box_averages(games, seed=dice.new_seed())
    for name, (mean, _se) in yardsticks.OPTIMAL_BOX_AVERAGES.items():
        # 60 games: each box's average within 5 standard errors (a box scores at most 50).
        sd_bound = 50 / 2
        assert abs(fresh[name][0] - mean) < 5 * sd_bound / math.sqrt(games), name


def test_charts_escape_text_and_use_no_inline_style():
    svg = charts.line_chart([charts.Series("<b>&", [(0, 1), (1, 2)])], title='"x"<', x_max=1)
    assert "<b>" not in svg and "&lt;b&gt;&amp;" in svg and "style=" not in svg
    assert "<rect" in charts.bar_chart([("a", 1), ("b", 0)], title="t")
    assert "–" in charts.line_chart([], title="empty")


def test_accuracy_luck_and_the_boxes_where_points_are_lost(user, user_client):
    bulk_history(user, 30, analysed=True)
    stats = statistics.player_stats(user_id=user.pk, catch_up=0)
    assert stats.accuracy == pytest.approx(A.accuracy(12.0, 13))
    assert stats.luck == pytest.approx(-3.0) and len(stats.luck_points) == statistics.TREND_BUCKETS
    assert all(v == pytest.approx(A.accuracy(12.0, 13)) for _d, v in stats.trend_points)
    assert [b for b, _l, _v in stats.box_loss] == ["CHANCE", "ONES"]
    assert stats.box_loss[0][2] == pytest.approx(9.0)
    html = user_client.get(f"/players/{user.username}/").content.decode()
    for chart in ("accuracy", "luck", "box-loss"):
        figure = re.search(rf'data-chart="{chart}"><figcaption>[^<]+</figcaption>(.*?)</figure>', html, re.S)
        assert figure.group(1).startswith("<svg") and "<script" not in figure.group(1)
    assert f'data-stat="accuracy">{A.accuracy(12.0, 13):.1f}<' in html
    assert 'data-stat="luck">-3.0<' in html
    # The yardstick: the computer players' typical accuracy, and what accuracy means.
    table = re.search(r"<table[^>]*data-bot-accuracy.*?</table>", html, re.S).group(0)
    assert 'data-strength="hard"' in table and "100.0" in table
    assert 'data-strength="easy"' in table and f"{yardsticks.BOT_ACCURACY['easy'][0]:.1f}" in table
    assert "data-accuracy-explained" in html and "style=" not in html


def test_the_bot_accuracy_figures_order_the_strengths():
    figures = yardsticks.BOT_ACCURACY
    assert figures["hard"][0] == 100.0 > figures["medium"][0] > figures["easy"][0]
    for median, low, high, _loss in figures.values():
        assert low <= median <= high


def test_head_to_head_reads_a_fixed_number_of_queries(user, django_assert_max_num_queries):
    """Paired in Python from four indexed reads: correlated subqueries per game pair were quadratic."""
    friend = UserFactory()
    bulk_history(user, 300, opponent=friend, analysed=True)
    with django_assert_max_num_queries(4):
        [h2h] = head_to_head.head_to_head(user_id=user.pk, other_ids=[friend.pk])
    assert h2h.games == 100 and h2h.wins + h2h.losses + h2h.shared == 100  # the friends games of the mix
