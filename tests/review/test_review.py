"""Game review: access, the stored analysis, the replay and its paging, exports, bounded queries."""

from __future__ import annotations

import asyncio
import csv
import datetime as dt
import io
import json
import re

import pytest
from asgiref.sync import sync_to_async
from django.db import connection
from django.template.defaultfilters import floatformat
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import Friendship
from analysis import services as review_services
from analysis import store as analysis_store
from dicegame import events, play
from dicegame.models import Game, GameAnalysis, Player, Turn
from dicegame.rules.dice import check_turn
from dicegame.rules.scoring import Box
from dicegame.strategy import analysis as A
from dicegame.strategy import computer
from review import replay
from tests.support import HX
from tests.support.factories import UserFactory
from tests.support.games import make_game, place, play_whole_game, roll
from tests.support.history import bulk_history

pytestmark = pytest.mark.django_db


@pytest.fixture
def vs_hard(user):
    return make_game([user, "hard"])


def test_the_owner_reviews_a_finished_game(user_client, vs_hard):
    response = user_client.get(f"/games/{vs_hard.pk}/review/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="replay"' in html and "Decision 1 of" in html
    assert 'data-replay="next"' in html and 'data-replay="prev"' not in html
    assert "<svg" in html and "polyline" in html and "style=" not in html
    stored = GameAnalysis.objects.get(game=vs_hard)
    assert stored.version == A.ANALYSIS_VERSION
    assert stored.summary["1"]["loss"] == 0  # the hard bot
    assert stored.summary["0"]["loss"] > 0  # the medium bot in the person's seat


def test_the_analysis_is_computed_once(user_client, vs_hard, monkeypatch):
    user_client.get(f"/games/{vs_hard.pk}/review/")
    first = GameAnalysis.objects.get(game=vs_hard)

    def boom(*args, **kwargs):
        raise AssertionError("analysed again")

    monkeypatch.setattr(A, "analyse_game", boom)
    assert user_client.get(f"/games/{vs_hard.pk}/review/?step=5").status_code == 200
    assert GameAnalysis.objects.get(game=vs_hard).created_at == first.created_at


def test_an_older_analysis_version_is_recomputed(vs_hard):
    GameAnalysis.objects.create(game=vs_hard, version=A.ANALYSIS_VERSION - 1, data={}, summary={})
    stored = analysis_store.analysis_for(vs_hard)
    assert stored.version == A.ANALYSIS_VERSION and stored.data["turns"]
    assert GameAnalysis.objects.filter(game=vs_hard).count() == 1


def test_two_first_views_store_one_analysis(vs_hard):
    data = analysis_store.compute_analysis(
        vs_hard, list(vs_hard.players.all()), analysis_store.completed_turns([vs_hard.pk])[vs_hard.pk]
    )
    a = analysis_store._store(vs_hard, data)
    b = analysis_store._store(vs_hard, data)  # the second one finds the first's row
    assert a.pk == b.pk and GameAnalysis.objects.count() == 1


def test_a_game_played_through_the_services_is_reviewed(user_actor, user_client):
    game = play.game_create_vs_computer(actor=user_actor, strengths=["hard"])
    for _ in range(13):
        t = Turn.objects.get(game=game, completed_at__isnull=True)
        play.turn_roll(game_id=game.pk, actor=user_actor, turn=t.number, roll=0)
        t.refresh_from_db()
        box = computer.auto_commit_box(t.player.sheet, tuple(t.dice))
        play.turn_choose_box(game_id=game.pk, actor=user_actor, turn=t.number, roll=1, box=box.name)
        play.turn_confirm(game_id=game.pk, actor=user_actor, turn=t.number, roll=1)
        game.refresh_from_db()
        if not game.is_finished:
            play.game_hurry(game_id=game.pk, actor=user_actor)
    game.refresh_from_db()
    assert game.is_finished
    response = user_client.get(f"/games/{game.pk}/review/")
    assert response.status_code == 200
    stored = GameAnalysis.objects.get(game=game)
    assert stored.summary["1"]["loss"] == 0  # the hard computer player
    person = stored.data["seats"]["0"]["summary"]
    assert person["decisions"] == 26  # one stop (after the first roll) and one box per turn
    # The person's boxes were the optimal ones for their dice: every box decision is best.
    boxes = [d for t in stored.data["turns"] if t["seat"] == 0 for d in t["decisions"] if d["kind"] == "box"]
    assert all(d["label"] == "best" for d in boxes)


def test_strangers_and_guests_cannot_review(vs_hard, client, guest_client):
    other = UserFactory()
    client.force_login(other)
    assert client.get(f"/games/{vs_hard.pk}/review/").status_code == 404
    assert guest_client.get(f"/games/{vs_hard.pk}/review/").status_code == 404
    assert client.get(f"/games/{vs_hard.pk}/export.json").status_code == 404
    assert client.get("/games/999999/review/").status_code == 404
    assert not GameAnalysis.objects.exists()


def test_a_friend_reviews_a_game_against_people_but_not_a_solo_game(user, client):

    friend, other = UserFactory(), UserFactory()
    low, high = sorted((user.pk, friend.pk))
    Friendship.objects.create(user_low_id=low, user_high_id=high)
    people = make_game([user, other], kind=Game.Kind.FRIENDS)
    solo = make_game([user], kind=Game.Kind.SOLO)
    client.force_login(friend)
    assert client.get(f"/games/{people.pk}/review/").status_code == 200
    assert client.get(f"/games/{solo.pk}/review/").status_code == 404


def test_a_guest_reviews_their_own_game(guest_client):
    game = make_game([None])
    Player.objects.filter(game=game).update(user=None, guest_key="guest-key-for-tests")
    assert guest_client.get(f"/games/{game.pk}/review/").status_code == 200


def test_an_unfinished_game_cannot_be_reviewed_nor_exported(user, user_client):
    game = make_game([user, "easy"], finished=False)
    response = user_client.get(f"/games/{game.pk}/review/")
    assert response.status_code == 409 and "not finished" in response.content.decode()
    response = user_client.get(f"/games/{game.pk}/export.json")
    assert response.status_code == 409 and game.seed not in response.content.decode()
    assert not GameAnalysis.objects.exists()


@pytest.mark.parametrize(
    ("raw", "position"),
    [("", 1), ("abc", 1), ("-4", 1), ("3", 4), ("1e3", 1), ("99999", "last"), ("2.5", 1), ("%00", 1)],
)
def test_bad_step_parameters_are_clamped(user_client, vs_hard, raw, position):
    response = user_client.get(f"/games/{vs_hard.pk}/review/", {"step": raw})
    assert response.status_code == 200
    html = response.content.decode()
    stored = GameAnalysis.objects.get(game=vs_hard)
    total = sum(len(t["decisions"]) for t in stored.data["turns"])
    n = total if position == "last" else position
    assert f"Decision {n} of {total}" in html
    if position == "last":
        assert 'data-replay="next"' not in html


def test_htmx_steps_get_the_replay_region_alone(user_client, vs_hard):
    response = user_client.get(f"/games/{vs_hard.pk}/review/?step=2", **HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<section id="replay"') and "<html" not in html
    assert 'hx-get="?step=1"' in html and 'hx-get="?step=3"' in html
    # A history restore (back button, no cache) needs the whole page.
    restore = user_client.get(
        f"/games/{vs_hard.pk}/review/?step=2", HTTP_HX_HISTORY_RESTORE_REQUEST="true", **HX
    )
    assert "<html" in restore.content.decode()


def test_every_decision_can_be_stepped_through(user_client, vs_hard):
    stored = analysis_store.analysis_for(vs_hard)
    review_obj = replay.game_review(game=vs_hard, stored=stored, step=0)
    assert review_obj.step_count == sum(len(t["decisions"]) for t in stored.data["turns"])
    for turn in review_obj.turns:
        step = replay.game_review(game=vs_hard, stored=stored, step=turn.first_step).step
        assert step.turn["number"] == turn.turn["number"] and step.is_first_of_turn
    html = user_client.get(f"/games/{vs_hard.pk}/review/").content.decode()
    assert html.count('<tr data-turn="') == 26


def test_auto_committed_and_stand_in_turns_are_marked(user, user_client):
    game = make_game(
        [user, "easy"], kind=Game.Kind.FRIENDS, flags={1: {"auto_committed": True}, 3: {"stand_in": True}}
    )
    stored = analysis_store.analysis_for(game)
    summary = stored.summary["0"]
    # Turn 1's box was the auto-commit's (its holds were the person's); turn 3 the computer played.
    turns = {t["number"]: t["decisions"] for t in stored.data["turns"]}
    assert summary["uncounted"] == 1 + len(turns[3])
    box_step = len(turns[1]) - 1  # the review's steps: the seat's decisions in order
    html = user_client.get(f"/games/{game.pk}/review/?step={box_step}").content.decode()
    assert "data-auto-committed" in html and "not counted in the accuracy" in html
    assert "played by the computer" in html


def test_a_log_that_cannot_be_replayed_is_a_clear_error(user, user_client):
    game = make_game([user])
    Turn.objects.filter(game=game, number=2).update(box="ONES")
    Turn.objects.filter(game=game, number=1).update(box="ONES")
    response = user_client.get(f"/games/{game.pk}/review/")
    assert response.status_code == 422 and "cannot be analysed" in response.content.decode()


def test_export_json_has_every_roll_hold_box_and_the_seed(user_client, vs_hard):
    response = user_client.get(f"/games/{vs_hard.pk}/export.json")
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="penta-game-{vs_hard.pk}.json"'
    data = json.loads(response.content)
    assert data["seed"] == vs_hard.seed and data["seed_commitment"] == vs_hard.seed_commitment
    # Seats are numbered from 1 everywhere people read them (as in the CSV export).
    assert data["format"] == "penta-game/2"
    assert len(data["turns"]) == 26 and [p["seat"] for p in data["players"]] == [1, 2]
    assert {t["seat"] for t in data["turns"]} == {1, 2} and data["turns"][0]["seat"] == 1
    turn = data["turns"][0]
    assert set(turn) >= {"rolls", "box", "points", "seat", "auto_committed", "stand_in"}
    assert all(set(r) == {"dice", "held"} for t in data["turns"] for r in t["rolls"])
    assert data["analysis"]["seats"]["2"]["summary"]["loss"] == 0  # seat 2: the hard computer player
    # The dice follow from the seed.

    for t in data["turns"]:
        assert check_turn(data["seed"], data["game"], t["number"], t["rolls"]) == []
    assert GameAnalysis.objects.filter(game=vs_hard).exists()


def test_export_csv_lists_the_whole_history(user, user_client):
    games = [make_game([user, "easy"]) for _ in range(3)]
    # A person's seat with a name a spreadsheet would run (a computer player's name is made, not stored).
    Player.objects.filter(game=games[0], seat=1).update(bot_strength="", name="=HYPERLINK(1)")
    make_game([UserFactory(), "easy"])  # someone else's
    response = user_client.get("/games/export.csv")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [int(r["game"]) for r in rows] == [g.pk for g in games]
    first = rows[0]
    me = Player.objects.get(game=games[0], seat=0)
    assert int(first["total"]) == me.total and first["opponents"] == "'=HYPERLINK(1)"
    assert int(first["seat"]) == 1 and rows[1]["opponents"] == "Computer 1 (easy)"
    assert (
        sum(int(first[b.name.lower()]) for b in Box) + int(first["upper_bonus"]) + int(first["penta_bonus"])
        == me.total
    )


def test_export_csv_without_identity_is_a_clear_404(client):
    response = client.get("/games/export.csv")
    assert response.status_code == 404


def test_links_to_the_review(user, user_client, vs_hard):
    html = user_client.get("/games/").content.decode()
    assert f'href="/games/{vs_hard.pk}/review/"' in html


def test_review_page_queries_are_bounded(user, user_client, django_assert_max_num_queries):

    bulk_history(user, 1000)
    game = make_game([user, "hard", "medium", "easy"])
    user_client.get(f"/games/{game.pk}/review/")  # computes and stores
    with django_assert_max_num_queries(8):
        assert user_client.get(f"/games/{game.pk}/review/?step=40").status_code == 200
    with django_assert_max_num_queries(8):
        assert user_client.get(f"/games/{game.pk}/review/?step=41", **HX).status_code == 200


def test_first_review_of_a_game_also_uses_few_queries(user, user_client):
    game = make_game([user, "hard", "medium", "easy"])
    with CaptureQueriesContext(connection) as queries:
        assert user_client.get(f"/games/{game.pk}/review/").status_code == 200
    assert len(queries) <= 15  # with the players' cache versions moved on (core.versions)


def test_history_page_queries_are_bounded(user, user_client, django_assert_max_num_queries):

    bulk_history(user, 1000)
    with django_assert_max_num_queries(10):
        response = user_client.get("/games/?page=3")
    assert response.status_code == 200 and response.content.decode().count("data-review") == 20
    for bad in ("abc", "-1", "99999", ""):
        assert user_client.get("/games/", {"page": bad}).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_the_analysis_is_stored_when_the_game_ends(user_actor):
    """Without an event loop (a test, a command), right after the end's commit."""
    game = play.game_create_solo(actor=user_actor)
    play_whole_game(game, user_actor)
    assert GameAnalysis.objects.filter(game=game).exists()


@pytest.mark.django_db(transaction=True)
def test_on_a_server_the_clock_analyses_a_finished_game_not_its_last_action(user_actor, strategy):
    """The last confirm, as a server runs it (in a thread working for an event loop), answers without
    the analysis; the clock's sweep stores it, and what follows an analysis (the puzzles) hears of it."""
    game = play.game_create_solo(actor=user_actor)
    for _ in range(13):
        turn = roll(game, user_actor)
        box = computer.auto_commit_box(turn.player.sheet, tuple(turn.dice))
        if turn.number < 13:
            place(game, user_actor, box)

    async def served():
        await sync_to_async(place)(game, user_actor, box)

    asyncio.run(served())
    game.refresh_from_db()
    assert game.is_finished
    assert not GameAnalysis.objects.filter(game=game).exists()

    heard = []
    events.subscribe(events.GamesAnalysed, heard.append)
    try:
        review_services.analyse_finished()
    finally:
        events.unsubscribe(events.GamesAnalysed, heard.append)
    assert GameAnalysis.objects.get(game=game).version == A.ANALYSIS_VERSION
    assert heard == [events.GamesAnalysed((game.pk,))]
    review_services.analyse_finished()  # nothing left: nothing stored twice
    assert GameAnalysis.objects.filter(game=game).count() == 1


def test_the_clocks_analysis_looks_back_one_hour(user_actor, strategy):
    # In a test's transaction nothing runs after a commit: the games end unanalysed.
    games = []
    for minutes in (10, 90):
        game = play.game_create_solo(actor=user_actor)
        play_whole_game(game, user_actor)
        Game.objects.filter(pk=game.pk).update(finished_at=timezone.now() - dt.timedelta(minutes=minutes))
        games.append(game)
    review_services.analyse_finished()
    assert GameAnalysis.objects.filter(game=games[0]).exists()
    assert not GameAnalysis.objects.filter(game=games[1]).exists()  # its review analyses it when opened


# -- luck against skill, optimal play on these dice ----------------------------------------------------


def test_the_review_shows_luck_and_skill_side_by_side(user_client, vs_hard):
    html = user_client.get(f"/games/{vs_hard.pk}/review/").content.decode()
    data = analysis_store.analysis_for(vs_hard).data
    for seat in ("0", "1"):
        figures = data["seats"][seat]
        line = re.search(rf'<li data-seat-luck="{seat}">.*?</li>', html, re.S).group(0)
        # Rounded as the page rounds (Django's floatformat: half up from the decimal repr, where
        # f"{x:.2f}" rounds the binary float: 127.285 is 127.29 on the page and 127.28 in Python).
        assert f'data-luck="{floatformat(figures["luck"], 2)}"' in line
        assert f'data-total-loss="{floatformat(figures["total_loss"], 2)}"' in line
        assert f'data-adjusted="{floatformat(figures["adjusted"], 2)}"' in line
        assert f'data-optimal-total="{figures["optimal"]["total"]}"' in line
    hard = vs_hard.players.get(seat=1)
    assert f"Total {hard.total}, optimal play on these dice {hard.total}" in html
    assert 'data-accuracy="100.0"' in html
    # The chart of both through the game: per seat a luck line and a dashed loss line.
    chart = html[html.index('id="luck-skill"') : html.index('class="review-summary"')]
    assert chart.count("<polyline") == 4 and chart.count("chart-series series-1 dashed") == 1
    # Every turn lists its luck and a link to the optimal player's turn on the same dice.
    assert html.count("data-turn-luck=") == 26 and html.count("data-optimal-link") == 26
    assert "style=" not in html


def test_each_roll_of_the_replay_shows_its_luck(user_client, vs_hard):
    data = analysis_store.analysis_for(vs_hard).data
    first = data["turns"][0]
    html = user_client.get(f"/games/{vs_hard.pk}/review/?step=0", **HX).content.decode()
    assert f'data-roll-luck="{floatformat(first["rolls"][0]["luck"], 2)}"' in html


def test_the_replay_switches_to_the_optimal_line_at_any_turn(user, user_client):
    game = make_game([user, "easy"], strengths=["easy", "easy"])
    data = analysis_store.analysis_for(game).data
    review_obj = replay.game_review(game=game, stored=analysis_store.analysis_for(game), step=0)
    turn_row = next(t for t in review_obj.turns if t.turn["round"] == 5 and t.turn["seat"] == 1)
    html = user_client.get(
        f"/games/{game.pk}/review/", {"step": turn_row.first_step, "line": "optimal"}, **HX
    ).content.decode()
    optimal = data["seats"]["1"]["optimal"]["turns"][4]
    assert 'data-line="optimal"' in html and f'data-optimal-turn="{optimal["number"]}"' in html
    assert (
        f'data-optimal-box="{optimal["box"]}"' in html
        and f'data-optimal-running="{optimal["total"]}"' in html
    )
    assert html.count("data-optimal-roll=") == len(optimal["rolls"])
    assert 'data-replay="own-line"' in html
    # Stepping on stays on the optimal line; any other value of line is the player's own line.
    assert "line=optimal" in re.search(
        r'data-replay="next-turn"[^>]*>|href="[^"]*"[^>]*data-replay="next-turn"', html
    ).group(0)
    own = user_client.get(f"/games/{game.pk}/review/", {"step": turn_row.first_step, "line": "x"}, **HX)
    assert own.status_code == 200 and 'data-line="own"' in own.content.decode()
    assert "data-optimal-turn" not in own.content.decode()


def test_luck_skill_and_the_optimal_line_speak_dutch(user, user_client, vs_hard):
    user_client.cookies["django_language"] = "nl"
    html = user_client.get(f"/games/{vs_hard.pk}/review/").content.decode()
    assert "Geluk en vaardigheid" in html and "verloren aan keuzes" in html
    assert "optimaal spel met deze dobbelstenen" in html and "Luck and skill" not in html
    html = user_client.get(f"/games/{vs_hard.pk}/review/?line=optimal&step=0").content.decode()
    assert "Toon de beurt van de speler" in html and "Optimaal eindtotaal met deze dobbelstenen" in html
    html = user_client.get(f"/players/{user.username}/").content.decode()
    assert "Wat nauwkeurigheid betekent" in html and "Nauwkeurigheid door de tijd" in html


def test_no_template_comment_leaks_into_the_page(user_client, vs_hard):
    html = user_client.get(f"/games/{vs_hard.pk}/review/").content.decode()
    assert "{#" not in html and "#}" not in html and "{%" not in html
