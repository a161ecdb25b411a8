"""The review opens on the verdict (issue 40): a line per seat, the viewer's first ("Luck cost you 9
points; your choices 13."), then the replay; the final scoresheets come after it, not above the headline;
accuracy has its scale; switching to optimal play keeps the step; dice in the turns' table are dice."""

from __future__ import annotations

import re

import pytest

from tests.support.games import make_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def vs_hard(user):
    return make_game([user, "hard"])


def test_the_verdict_comes_first_then_the_replay_then_the_sheets(user_client, vs_hard):
    page = user_client.get(f"/games/{vs_hard.pk}/review/").content.decode()
    verdict = page.index('class="review-verdict"')
    assert verdict < page.index('id="replay"') < page.index('class="review-summary"')
    assert page.index('class="scoresheet review-sheet"') > page.index('id="replay"')
    lines = re.findall(r'<p class="verdict( mine)?" data-verdict="(\d)">([^<]+)</p>', page)
    assert [(mine, seat) for mine, seat, _text in lines] == [(" mine", "0"), ("", "1")]
    assert re.fullmatch(r"Luck (gave|cost) you \d+ points; your choices (cost )?\d+\.", lines[0][2])
    other = r"Luck (gave|cost) Computer 1 \(hard\) \d+ points; their choices (cost )?\d+\."
    assert re.fullmatch(other, lines[1][2]), lines[1][2]


def test_accuracy_has_its_scale_in_both_languages(user, user_client, vs_hard):
    page = user_client.get(f"/games/{vs_hard.pk}/review/").content.decode()
    assert re.search(r'data-accuracy="[\d.]+">\d+\.\d of 100</span>', page)
    user_client.cookies["django_language"] = "nl"
    page = user_client.get(f"/games/{vs_hard.pk}/review/").content.decode()
    assert re.search(r'data-accuracy="[\d.,]+">\d+,\d van 100</span>', page)


def test_switching_to_optimal_play_keeps_the_step(user_client, vs_hard):
    page = user_client.get(f"/games/{vs_hard.pk}/review/?step=5").content.decode()
    step = re.search(r'data-step="(\d+)"', page).group(1)
    link = re.search(r'data-replay="optimal-line"', page)
    assert link and f"?line=optimal&amp;step={step}" in page
    optimal = user_client.get(f"/games/{vs_hard.pk}/review/?line=optimal&step={step}").content.decode()
    assert f'data-step="{step}"' in optimal and f'href="?step={step}"' in optimal


def test_the_turns_table_shows_each_roll_as_dice(user_client, vs_hard):
    for url in (f"/games/{vs_hard.pk}/review/", f"/games/{vs_hard.pk}/"):
        page = user_client.get(url).content.decode()
        rolls = re.findall(r'<td class="rolls">(.*?)</td>', page, re.S)
        assert rolls
        assert all('class="log-die' in r and "*" not in r for r in rolls)
        assert '<span class="visually-hidden">Roll 1: </span>' in rolls[0]
        assert "Rolls (held dice framed)" in page
