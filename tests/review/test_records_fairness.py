"""Fair records: turns the computer played for an absent person earn no records, and leaving is a loss.

The exploit this closes: two accounts that leave a room with a 30-second timer get 13 optimal turns each
from the computer (297 points in one such game) and would top the leaderboards with them.
"""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from django.utils import timezone, translation

from dicegame import play, records
from dicegame.models import Game, Player, Turn
from dicegame.play import rooms, selectors
from dicegame.rules.scoring import Box
from review import head_to_head
from review import leaderboards as boards_module
from review import stats as statistics
from tests.support.factories import UserFactory, actor, befriend, client_for
from tests.support.games import make_game
from tests.support.history import bulk_history, sheet_with, stats_game

pytestmark = pytest.mark.django_db
LIMIT = records.STAND_IN_TURN_LIMIT


def mark_stand_in_turns(game: Game, user, n: int) -> None:
    """The computer played `n` of this person's turns (stats_game games have no turn log: add one)."""
    seat = game.players.get(user=user)
    start = Turn.objects.filter(game=game).count()
    Turn.objects.bulk_create(
        [
            Turn(
                game=game,
                player=seat,
                number=start + i + 1,
                round=i + 1,
                held=[False] * 5,
                stand_in=i < n,
                completed_at=timezone.now(),
            )
            for i in range(13)
        ]
    )


def left_room_game(host, friend, settings) -> Game:
    """A real room with a 30-second timer whose two players never play: the timers run out, the computer
    plays their turns, and after two misses keeps their seats to the end."""
    settings.PENTA_BOT_STEP_SECONDS = 0
    game = rooms.room_create(actor=actor(host), seats=2, turn_seconds=30)
    rooms.room_invite(game_id=game.pk, actor=actor(host), username=friend.username)
    rooms.room_accept_invitation(game_id=game.pk, actor=actor(friend))
    rooms.room_start(game_id=game.pk, actor=actor(host))
    for _ in range(200):
        game.refresh_from_db()
        if game.is_finished:
            break
        past = timezone.now() - timedelta(seconds=1)
        Turn.objects.filter(game=game, completed_at__isnull=True).update(deadline_at=past, next_step_at=past)
        play.game_settle(game_id=game.pk)
    assert game.is_finished
    return game


def test_the_left_room_exploit_earns_no_records_but_counts_as_played(host, friend, settings, strategy):
    game = left_room_game(host, friend, settings)
    seats = list(game.players.order_by("seat"))
    assert all(p.stand_in for p in seats)  # the computer kept both seats to the end
    assert Turn.objects.filter(game=game, stand_in=True).count() == 26
    exploit_total = max(p.total for p in seats)
    # Each one also plays an honest game of their own, well below what the computer scored for them.
    for user in (host, friend):
        stats_game(user, Game.Kind.SOLO, sheet_with(CHANCE=20, SIXES=18))
    honest = 38

    for user in (host, friend):
        stats = statistics.player_stats(user_id=user.pk)
        assert stats.games == 2 and stats.counted == 1  # played, not counted
        assert stats.best == honest and stats.average == honest
        assert stats.wins == 0 and stats.shared_wins == 0  # both left: nobody won
        friends_kind = next(k for k in stats.by_kind if k.kind == Game.Kind.FRIENDS)
        assert friends_kind.games == 1 and friends_kind.best is None and friends_kind.average is None
        assert stats.boxes[0].average is not None  # from the honest game only

    boards = {b.key: b for b in boards_module.leaderboards(user_ids=[host.pk, friend.pk], viewer_id=host.pk)}
    assert {r.value for r in boards["best"].rows} == {honest} != {exploit_total}
    assert all(r.games == 1 for r in boards["best"].rows)

    page = client_for(host).get("/leaderboard/").content.decode()
    assert f'data-value="{exploit_total}"' not in page

    # Neither won against the other: both left.
    [h2h] = head_to_head.head_to_head(user_id=host.pk, other_ids=[friend.pk])
    assert (h2h.games, h2h.wins, h2h.losses, h2h.shared) == (1, 0, 0, 0)
    assert h2h.my_average is None and h2h.their_average is None

    # My games marks it.
    page = selectors.history_page(actor=actor(host), page=1)
    row = next(r for r in page.object_list if r.game.pk == game.pk)
    assert row.not_counted and row.result == "Left: a loss"
    html = client_for(host).get("/games/").content.decode()
    assert "not counted for records" in html


def test_a_game_with_exactly_the_limit_still_counts(user):
    friend = UserFactory()
    at_limit = stats_game(user, Game.Kind.FRIENDS, sheet_with(CHANCE=25, SIXES=24), others=[(friend, 10)])
    over = stats_game(
        user, Game.Kind.FRIENDS, sheet_with(CHANCE=30, SIXES=30, PENTA=50), others=[(friend, 10)]
    )
    mark_stand_in_turns(at_limit, user, LIMIT)
    mark_stand_in_turns(over, user, LIMIT + 1)

    stats = statistics.player_stats(user_id=user.pk)
    assert (stats.games, stats.counted, stats.not_counted) == (2, 1, 1)
    assert stats.best == 49 and stats.average == 49 and stats.pentas == 0
    # Not leaving: both are still wins (the person was at the table at the end).
    assert stats.wins == 2
    boards = {b.key: b for b in boards_module.leaderboards(user_ids=[user.pk], viewer_id=user.pk)}
    assert [(r.value, r.games) for r in boards["best"].rows] == [(49, 1)]
    assert boards["pentas"].rows == []
    [h2h] = head_to_head.head_to_head(user_id=user.pk, other_ids=[friend.pk])
    assert (h2h.games, h2h.wins, h2h.my_average) == (2, 2, 49)

    rows = {r.game.pk: r for r in selectors.history_page(actor=actor(user), page=1).object_list}
    assert not rows[at_limit.pk].not_counted and rows[over.pk].not_counted


def test_a_left_game_is_a_loss_for_the_leaver_and_a_win_for_those_still_at_the_table(user):
    leaver = UserFactory(username="leaver")
    befriend(user, leaver)
    # The leaver resigned with the higher total (the computer finished the seat well): still a loss.
    game = stats_game(user, Game.Kind.FRIENDS, sheet_with(CHANCE=20), others=[(leaver, 200)])
    Player.objects.filter(game=game, user=leaver).update(left_at=timezone.now())
    # And a game the leaver's seat was still kept by the computer at the end.
    kept = stats_game(user, Game.Kind.FRIENDS, sheet_with(CHANCE=10), others=[(leaver, 150)])
    Player.objects.filter(game=kept, user=leaver).update(stand_in=True)

    mine = statistics.player_stats(user_id=user.pk)
    assert mine.wins == 2 and mine.shared_wins == 0
    theirs = statistics.player_stats(user_id=leaver.pk)
    assert theirs.games == 2 and theirs.wins == 0

    [h2h] = head_to_head.head_to_head(user_id=user.pk, other_ids=[leaver.pk])
    assert (h2h.games, h2h.wins, h2h.losses, h2h.shared) == (2, 2, 0, 0)
    [back] = head_to_head.head_to_head(user_id=leaver.pk, other_ids=[user.pk])
    assert (back.games, back.wins, back.losses) == (2, 0, 2)

    rows = {r.game.pk: r for r in selectors.history_page(actor=actor(user), page=1).object_list}
    assert rows[game.pk].result == "Won" and rows[kept.pk].result == "Won"
    rows = {r.game.pk: r for r in selectors.history_page(actor=actor(leaver), page=1).object_list}
    assert rows[game.pk].result == "Left: a loss"

    out = client_for(leaver).get("/games/export.csv")
    lines = list(csv.DictReader(io.StringIO(b"".join(out.streaming_content).decode())))
    assert {r["result"] for r in lines} == {"left"}
    assert {r["counts_for_records"] for r in lines} == {"1"}  # no stand-in turns logged: only a loss


def test_a_win_among_those_at_the_table_is_shared_on_equal_totals(user):
    a, b = UserFactory(), UserFactory()
    game = stats_game(user, Game.Kind.FRIENDS, sheet_with(CHANCE=20), others=[(a, 20), (b, 250)])
    Player.objects.filter(game=game, user=b).update(left_at=timezone.now())
    stats = statistics.player_stats(user_id=user.pk)
    assert (stats.wins, stats.shared_wins) == (0, 1)


@pytest.mark.parametrize("language", ["en", "nl"])
def test_the_rule_is_on_every_page_that_shows_records(user, language):
    friend = UserFactory()
    befriend(user, friend)
    stats_game(user, Game.Kind.FRIENDS, sheet_with(CHANCE=20), others=[(friend, 10)])
    c = client_for(user)
    c.cookies["django_language"] = language

    with translation.override(language):
        rule = records.records_rule()
    for url in (f"/players/{user.username}/", "/leaderboard/", f"/players/{friend.username}/"):
        html = c.get(url).content.decode()
        assert "data-records-rule" in html, url
        assert rule.replace("'", "&#x27;") in html, url
    # The player page shows it under the games and under head to head.
    assert c.get(f"/players/{user.username}/").content.decode().count("data-records-rule") == 2
    if language == "nl":
        assert "overnam" in rule and "verlies" in rule


def test_stats_pages_stay_bounded_with_stand_in_turns(user, user_client, django_assert_max_num_queries):
    """The rule adds subqueries, not queries: the page costs the same with a turn log."""

    friend = UserFactory()
    befriend(user, friend)
    games = bulk_history(user, 300, opponent=friend, analysed=True)
    seats = {p.game_id: p for p in Player.objects.filter(user=user)}
    Turn.objects.bulk_create(
        [
            Turn(game=g, player=seats[g.pk], number=n, round=n, held=[False] * 5, stand_in=i % 3 == 0)
            for i, g in enumerate(games)
            for n in range(1, 14)
        ]
    )
    # (Each page +1 since the header counts the games waiting for the person's move, +1 for the
    # tournaments' section; +3: the cache versions the page depends on, read once, the site-wide ones
    # stored by their first reading.)
    with django_assert_max_num_queries(22):
        html = user_client.get(f"/players/{user.username}/").content.decode()
    assert 'data-stat="games">300<' in html and 'data-stat="not-counted">100<' in html
    # (+1: who is off the boards for fair play, part of the boards' cache key.)
    with django_assert_max_num_queries(12):
        assert user_client.get("/leaderboard/").status_code == 200
    with django_assert_max_num_queries(10):
        assert user_client.get("/games/export.csv").status_code == 200


def test_box_averages_leave_out_games_that_do_not_count(user):
    honest = stats_game(user, Game.Kind.SOLO, sheet_with(ONES=3))
    kept = stats_game(user, Game.Kind.SOLO, sheet_with(ONES=5))
    mark_stand_in_turns(kept, user, 13)
    assert honest
    stats = statistics.player_stats(user_id=user.pk)
    ones = next(b for b in stats.boxes if b.box == Box.ONES)
    assert ones.average == 3


def test_a_resigned_game_against_the_computer_is_a_loss_and_says_so(user, strategy):
    game = play.game_create_vs_computer(actor=actor(user), strengths=["easy"])
    solo = play.game_create_solo(actor=actor(user))
    play.game_resign(game_id=game.pk, actor=actor(user))
    play.game_resign(game_id=solo.pk, actor=actor(user))
    stats = statistics.player_stats(user_id=user.pk)
    assert stats.games == 2 and stats.wins == 0
    rows = {r.game.pk: r for r in selectors.history_page(actor=actor(user), page=1).object_list}
    assert rows[game.pk].result == "Resigned: a loss" and rows[solo.pk].result == "Resigned"
    out = client_for(user).get("/games/export.csv")
    lines = list(csv.DictReader(io.StringIO(b"".join(out.streaming_content).decode())))
    assert [r["result"] for r in lines] == ["resigned", "resigned"]


def test_the_review_marks_a_seat_whose_game_does_not_count(user, strategy):

    # The person sits first: turns 1, 3, 5 are theirs.
    within = make_game([user, "easy"], flags={1: {"stand_in": True}, 3: {"stand_in": True}})
    over = make_game([user, "easy"], flags={n: {"stand_in": True} for n in (1, 3, 5)})
    c = client_for(user)
    assert "data-not-counted" not in c.get(f"/games/{within.pk}/review/").content.decode()
    assert "data-not-counted" in c.get(f"/games/{over.pk}/review/").content.decode()


def test_head_to_head_counts_and_explains_a_game_both_left(user):
    """Games = wins + losses + shared + both left: a game both people left is in none of the first
    three, so the page counts it in a column of its own and says why (issue 22, item 13)."""
    friend = UserFactory(username="friend-who-left")
    befriend(user, friend)
    both = stats_game(user, Game.Kind.FRIENDS, sheet_with(CHANCE=20), others=[(friend, 30)])
    Player.objects.filter(game=both).update(left_at=timezone.now())  # both resigned the table
    stats_game(user, Game.Kind.FRIENDS, sheet_with(CHANCE=25), others=[(friend, 10)])  # a plain win
    [h2h] = head_to_head.head_to_head(user_id=user.pk, other_ids=[friend.pk])
    assert (h2h.games, h2h.wins, h2h.losses, h2h.shared, h2h.both_left) == (2, 1, 0, 0, 1)
    assert h2h.games == h2h.wins + h2h.losses + h2h.shared + h2h.both_left

    for language, words in (("en", "A game you both left"), ("nl", "Een spel dat jullie allebei verlieten")):
        c = client_for(user)
        c.cookies["django_language"] = language
        html = c.get(f"/players/{user.username}/").content.decode()
        row = html.split('data-opponent="friend-who-left"')[1].split("</tr>")[0]
        assert "<td data-both-left>1</td>" in row and "<td data-wins>1</td>" in row
        assert "data-both-left-rule" in html and words in html
