"""After a puzzle's answer the position is answered (issue 22, item 13): the best choice is marked on the
position itself (its dice, or its box) and no die, box or button takes another choice, in the htmx
answer (out of band) and on the page without JavaScript alike."""

from __future__ import annotations

import re

import pytest

from dicegame.rules.scoring import Box
from puzzles import services as S
from tests.puzzles.test_puzzles import keep_puzzle, post_option, straight_puzzle  # noqa: F401 (fixtures)
from tests.support import HX
from tests.support.puzzles import box

pytestmark = pytest.mark.django_db


def enabled_controls(html: str) -> list[str]:
    """The position's dice, boxes and Keep button that can still be used."""
    controls = re.findall(r'<(?:input|button)[^>]*(?:name="keep"|name="box"|data-action="keep")[^>]*>', html)
    return [c for c in controls if " disabled" not in c]


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "no-javascript"])
def test_a_wrong_box_marks_the_best_keep_and_disables_everything(user_client, keep_puzzle, htmx):  # noqa: F811
    page = user_client.get(f"/puzzles/{keep_puzzle.pk}/").content.decode()
    assert enabled_controls(page)  # before: the dice, the legal boxes and Keep
    assert "data-best-die" not in page and "data-best-choice" not in page

    html = post_option(user_client, keep_puzzle, box(Box.CHANCE), **(HX if htmx else {}))
    html = html.content.decode()
    assert 'data-result="wrong"' in html
    assert enabled_controls(html) == []
    # The dice 1 2 6 6 6: the three 6s are the best hold, marked on the dice.
    assert re.findall(r'data-die="(\d)"[^>]*data-best-die', html) == ["3", "4", "5"]
    assert 'data-best-choice="keep"' in html and "Best: keep the dice marked “best”" in html
    # The player's box is named on the sheet; no box is marked best.
    chance = re.search(
        r'<tr class="box-row[^"]*"[^>]*>\s*<th scope="row">\s*<button[^>]*data-box="CHANCE".*?</th>',
        html,
        re.S,
    )
    assert "your choice" in chance.group(0)
    assert 'data-best-choice="box"' not in html


def test_a_right_box_is_marked_best_on_the_sheet(user_client, straight_puzzle):  # noqa: F811
    html = post_option(user_client, straight_puzzle, straight_puzzle.best, **HX).content.decode()
    assert 'data-result="right"' in html and enabled_controls(html) == []
    row = re.search(r'<tr class="box-row best" data-best-choice="box">.*?</tr>', html, re.S).group(0)
    assert 'data-box="SMALL_STRAIGHT"' in row and ">best<" in row and "your choice" not in row
    assert "data-best-die" not in html


def test_a_wrong_keep_shows_the_players_hold_beside_the_best(user_client, keep_puzzle):  # noqa: F811
    worst = S.position_options(keep_puzzle)[-1]
    html = post_option(user_client, keep_puzzle, worst, **HX).content.decode()
    kept = [c for c in re.findall(r'<input[^>]*name="keep"[^>]*>', html) if " checked" in c]
    expected = len(worst.keep) if worst.box is None else 0
    assert len(kept) == expected
    assert enabled_controls(html) == []


def test_a_refused_choice_leaves_the_position_playable(user_client, straight_puzzle):  # noqa: F811
    response = user_client.post(f"/puzzles/{straight_puzzle.pk}/", {"box": "FOURS"}, **HX)
    assert response.status_code == 400
    html = response.content.decode()
    assert "hx-swap-oob" not in html and "data-best-choice" not in html
    assert enabled_controls(user_client.get(f"/puzzles/{straight_puzzle.pk}/").content.decode())


def test_the_answered_position_speaks_dutch(user, user_client, keep_puzzle):  # noqa: F811
    user_client.cookies["django_language"] = "nl"
    html = post_option(user_client, keep_puzzle, box(Box.CHANCE), **HX)
    html = html.content.decode()
    assert "Beste: bewaar de stenen met “beste” en gooi de rest." in html and ">beste<" in html
