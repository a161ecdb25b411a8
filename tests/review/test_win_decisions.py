"""The review in chances (review.win_decisions, winprob.review): each decision's cost in chance of
winning beside its cost in points, the review opening on the decisions that mattered most, their chart;
against the field for a daily game. The session's small win tables judge the last three turns of each
seat, which is where these games' decisions are weighed."""

import datetime
import re

import pytest
from django.test import Client

from dicegame.models import Game, Player
from dicegame.strategy.win_review import mattered_most
from tests.support.factories import UserFactory, client_for
from tests.support.games import make_game
from winprob import review as winprob_review

pytestmark = pytest.mark.django_db


def reviewed(game, client, query=""):
    return client.get(f"/games/{game.pk}/review/{query}").content.decode()


def test_the_review_opens_on_the_decision_that_mattered_most_and_shows_it_in_chances():
    user = UserFactory()
    # The dice are drawn afresh for each game: now and then the easy play's last three turns give up no
    # chance at all (a game already decided), so play a few until one does.
    for _ in range(8):
        game = make_game([user, "easy"], strengths=["easy", "easy"])
        course = winprob_review.compute(game)
        by_turn = course.data["decisions"]
        # The last three turns of each seat are judged (the session's small tables), the others not.
        rounds = sorted({t.round for t in game.turns.all() if str(t.number) in by_turn})
        assert rounds == [11, 12, 13]
        top = mattered_most(by_turn)
        if top:
            break
    assert top, "greedy play gives up some chance somewhere in its last three turns"
    client = client_for(user)
    page = reviewed(game, client)
    assert "The decisions that mattered most" in page and "data-decision-chart" in page
    listed = [int(s) for s in re.findall(r'data-mattered-step="(\d+)"', page)]
    assert len(listed) == len(top)
    # The replay opens on the first of them, its cost in chance of winning beside its cost in points.
    assert re.search(r'id="replay"[^>]*data-step="(\d+)"', page).group(1) == str(listed[0])
    cost = float(re.search(r'data-win-cost="([\d.]+)"', page).group(1))
    assert cost == pytest.approx(top[0][2] * 100, abs=0.06)
    assert "Cost in chance of winning" in page and "Chance of winning after it" in page
    # Any step asked for is shown instead, with its own figures (a judged one) or none (an early one).
    early = reviewed(game, client, "?step=0")
    assert 'data-step="0"' in early and "data-win-cost" not in early
    # In Dutch.
    dutch = client.get(f"/games/{game.pk}/review/", HTTP_ACCEPT_LANGUAGE="nl").content.decode()
    assert "De beslissingen die het meest uitmaakten" in dutch and "Kosten in kans om te winnen" in dutch


def test_a_review_without_its_course_asks_for_it_and_opens_at_the_start():
    """Here, with no server's worker, nothing is worked out on the request: the page says it is on its
    way (a server's worker thread works it out in the niced child)."""
    user = UserFactory()
    game = make_game([user, "hard"], strengths=["easy", "hard"])
    page = reviewed(game, client_for(user))
    assert "data-mattered" not in page and 'data-step="0"' in page
    assert not winprob_review.stored(game)


def test_a_daily_game_is_weighed_against_its_field_once_the_day_is_over():
    user = UserFactory()
    game = make_game([user], kind=Game.Kind.SOLO, strengths=["easy"])
    Game.objects.filter(pk=game.pk).update(daily_date=datetime.date(2026, 1, 5))
    others = []
    for _ in range(10):
        other = make_game([UserFactory()], kind=Game.Kind.SOLO, strengths=["hard"])
        others.append(other)
    Game.objects.filter(pk__in=[g.pk for g in others]).update(daily_date=datetime.date(2026, 1, 5))
    game.refresh_from_db()
    course = winprob_review.compute(game)
    assert course.data["aim"] == "field" and course.data["field"] == 10
    assert course.data["decisions"]
    totals = sorted(Player.objects.filter(game__in=others).values_list("total", flat=True))
    assert winprob_review.field_totals(game) and sorted(winprob_review.field_totals(game)) == totals
    page = reviewed(game, client_for(user))
    if mattered_most(course.data["decisions"]):
        assert "The decisions that mattered most to your place" in page
        assert "Cost in share of the field" in page
    # A day still running: no field yet, nothing worked out.
    running = make_game([UserFactory()], kind=Game.Kind.SOLO, strengths=["easy"])
    Game.objects.filter(pk=running.pk).update(daily_date=datetime.date.today() + datetime.timedelta(days=1))
    running.refresh_from_db()
    assert winprob_review.compute(running) is None


def test_a_guest_viewing_a_review_makes_nothing_be_worked_out_on_the_request():
    user = UserFactory()
    game = make_game([user, "easy"], strengths=["easy", "easy"])
    Game.objects.filter(pk=game.pk).update(invite_token="tok")
    for _ in range(3):
        Client().get(f"/games/{game.pk}/review/?t=tok")
    assert not winprob_review.stored(game)
