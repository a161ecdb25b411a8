"""Hints in plain words: the best move as one sentence, the dice to keep marked in the tray, the exact
figures one click away, and the "hints used" consequence said before any hint is shown."""

import re

import pytest
from django.utils import translation
from hypothesis import given
from hypothesis import strategies as st

from dicegame.rules.scoring import Box, Scoresheet
from dicegame.screen import hint_words
from dicegame.strategy import Strategy
from tests.support import HX
from tests.support.factories import GameFactory, PlayerFactory, TurnFactory, client_for


@pytest.mark.parametrize(
    ("keep", "words"),
    [
        ((5,), "the 5"),
        ((4, 4, 5), "the two 4s and the 5"),
        ((6, 6, 6), "the three 6s"),
        ((1, 2, 3, 4), "the 1, the 2, the 3 and the 4"),
        ((2, 2, 3, 3), "the two 2s and the two 3s"),
    ],
)
def test_dice_in_words(keep, words):
    assert hint_words.dice_words(keep) == words


def test_sentences():
    assert hint_words.keep_sentence(()) == "Roll all five again"
    assert hint_words.keep_sentence((4, 4, 5)) == "Keep the two 4s and the 5"
    assert hint_words.box_sentence(Box.FULL_HOUSE, 25) == "Write 25 in Full house"
    assert hint_words.box_sentence(Box.CHANCE, 22, stop_rolling=True) == "Keep all five: write 22 in Chance"


def test_sentences_in_dutch():
    with translation.override("nl"):
        assert hint_words.keep_sentence(()) == "Gooi alle vijf opnieuw"
        assert hint_words.keep_sentence((4, 4, 5)) == "Bewaar de twee 4'en en de 5"
        assert hint_words.box_sentence(Box.FULL_HOUSE, 25) == "Vul 25 in bij Full house"


def test_keep_positions_prefer_the_dice_already_held():
    assert hint_words.keep_positions((4, 5, 4, 1, 4), (4, 4, 5)) == (True, True, True, False, False)
    held = (False, False, True, False, True)
    assert hint_words.keep_positions((4, 5, 4, 1, 4), (4, 4, 5), held) == (False, True, True, False, True)


@given(
    st.lists(st.integers(1, 6), min_size=5, max_size=5),
    st.lists(st.booleans(), min_size=5, max_size=5),
    st.lists(st.booleans(), min_size=5, max_size=5),
)
def test_keep_positions_keep_exactly_the_multiset(dice, chosen, held):
    keep = tuple(sorted(v for v, c in zip(dice, chosen, strict=True) if c))
    flags = hint_words.keep_positions(tuple(dice), keep, tuple(held))
    assert tuple(sorted(v for v, f in zip(dice, flags, strict=True) if f)) == keep


# -- on the page ---------------------------------------------------------------------------------------


def hinted_game(user, dice_values, *, rolls=1, held=None, hints=True):
    player = PlayerFactory(user=user, game=GameFactory(), hints=hints)
    log = [{"dice": list(dice_values), "held": [False] * 5}] * rolls
    TurnFactory(player=player, dice=list(dice_values), rolls=log, held=held or [False] * 5)
    return player.game


@pytest.mark.django_db
def test_the_hint_leads_with_a_sentence_and_marks_the_dice_to_keep(user, strategy):
    dice = (4, 4, 5, 1, 2)
    game = hinted_game(user, dice)
    html = client_for(user).get(f"/games/{game.pk}/").content.decode()
    best = Strategy.shared().best_keep(Scoresheet(), dice, 2)
    assert 0 < len(best) < 5  # keeping some dice is best here (the 4s, at least)
    sentence = re.search(r'<p class="hint-sentence" data-hint-sentence>(.*?)</p>', html).group(1)
    assert sentence == hint_words.keep_sentence(best)
    # The dice to keep carry the class; the others don't.
    marked = [int(v) for v in re.findall(r'class="die[^"]*hint-keep[^"]*"[^>]*data-value="(\d)"', html)]
    assert sorted(marked) == sorted(best)
    # The exact figures are one click away.
    details = re.search(r'<details class="hint-figures">(.*?)</details>', html, re.S).group(1)
    assert 'data-hint="keeps"' in details and 'data-hint="boxes"' in details


@pytest.mark.django_db
def test_after_the_last_roll_the_hint_names_the_box(user, strategy):
    game = hinted_game(user, (2, 2, 3, 3, 3), rolls=3)
    html = client_for(user).get(f"/games/{game.pk}/").content.decode()
    sentence = re.search(r"data-hint-sentence>(.*?)</p>", html).group(1)
    assert sentence.startswith("Write ") and " in " in sentence
    assert "hint-keep" not in html


@pytest.mark.django_db
def test_hints_say_first_that_the_game_will_be_unrated(user, strategy):
    game = hinted_game(user, (1, 2, 3, 4, 6), hints=False)
    client = client_for(user)
    html = client.get(f"/games/{game.pk}/").content.decode()
    assert "will not count for ratings or leaderboards" in html
    assert "data-hint-sentence" not in html
    html = client.get(f"/games/{game.pk}/", HTTP_ACCEPT_LANGUAGE="nl").content.decode()
    assert "telt niet mee voor ratings of ranglijsten" in html
    # Switched on: the game is marked, and the sentence shows.
    response = client.post(f"/games/{game.pk}/hints/", {"on": "1"}, **HX)
    assert response.status_code == 200
    # The answer marks the header at once (it used to wait for a reload).
    assert re.search(
        r'<span id="hints-badge" hx-swap-oob="morph"><span class="badge" data-hints-used>',
        response.content.decode(),
    )
    html = client.get(f"/games/{game.pk}/").content.decode()
    assert "data-hints-used" in html and "data-hint-sentence" in html
