"""The review's chart of every seat's chance of winning through the game, with its largest swings."""

import re
import time

import pytest

from dicegame.models import Game
from dicegame.rules.scoring import Box, Scoresheet
from dicegame.strategy import Strategy
from dicegame.strategy import winprob as W
from tests.support.factories import UserFactory, client_for
from tests.support.games import make_game
from winprob import process, review
from winprob.models import GameWinCourse

pytestmark = pytest.mark.django_db


def test_the_course_is_stored_once_with_every_written_box_and_its_largest_swings():
    user = UserFactory(username="ria")
    game = make_game([user, "hard", "easy", "medium"])
    start = time.perf_counter()
    course = review.compute(game)
    print(f"\nwinning chances through a game of 4: {time.perf_counter() - start:.2f} s")
    data = course.data
    assert len(data["chances"]) == 1 + 52 and len(data["steps"]) == 52
    assert data["chances"][0] == [0.25] * 4
    for point in data["chances"]:
        assert sum(point) == pytest.approx(1, abs=1e-3)
    # The end is the result: the winner has it all, and a tie shares it (the dice are not seeded).
    winners = [p.seat for p in game.players.all() if p.rank == 1]
    assert data["chances"][-1] == pytest.approx([1 / len(winners) if s in winners else 0 for s in range(4)])
    assert len(data["swings"]) == 3
    moves = [
        abs(data["chances"][i][s["seat"]] - data["chances"][i - 1][s["seat"]])
        for i, s in enumerate(data["steps"], start=1)
    ]
    assert sorted(moves, reverse=True)[:3] == [moves[i - 1] for i in data["swings"]]


def test_the_review_shows_the_chart_with_the_marked_swings():
    user = UserFactory(username="ria")
    game = make_game([user, "hard"])
    client = client_for(user)
    page = client.get(f"/games/{game.pk}/review/").content.decode()
    # Not worked out yet (and no server worker in a test): no chart, and the page does not wait.
    assert "data-win-course" not in page
    review.compute(game)
    page = client.get(f"/games/{game.pk}/review/").content.decode()
    figure = re.search(r"<figure class=\"chart-figure\" data-win-course>.*?</figure>", page, re.S).group(0)
    assert "Chance of winning through the game" in figure
    assert figure.count('class="chart-mark"') == 3
    swings = re.findall(r'<li data-swing="(\d)">([^<]+)</li>', figure)
    assert [n for n, _text in swings] == ["1", "2", "3"]
    assert all(re.search(r"round \d+: \d+ in .+, winning chance \d+% → \d+%", t) for _n, t in swings)
    dutch = client_for(user, language="nl").get(f"/games/{game.pk}/review/").content.decode()
    assert "Kans om te winnen door het spel heen" in dutch and "ronde" in dutch


def test_a_solo_game_has_no_course():
    user = UserFactory(username="ria")
    game = make_game([user], kind=Game.Kind.SOLO)
    assert review.compute(game) is None
    assert not GameWinCourse.objects.exists()
    assert "data-win-course" not in client_for(user).get(f"/games/{game.pk}/review/").content.decode()


def test_the_niced_child_process_gives_the_same_figures_as_the_inline_engine():
    """On a server the bar and the course are worked out in a child process (winprob.process)."""

    seats = [
        W.SeatPosition(Scoresheet({Box.CHANCE: 22}), (6, 6, 6, 2, 1), 1),
        W.SeatPosition(Scoresheet({Box.SIXES: 18})),
    ]
    values = Strategy.shared().values
    assert process.chances(seats, 500, 3) == W.win_chances(values, seats, n=500, seed=3)
    steps = [(0, Scoresheet({Box.CHANCE: 22})), (1, Scoresheet({Box.PENTA: 50}))]
    assert process.course(2, steps, 300, 1) == W.course(values, 2, steps, n=300, seed=1)
