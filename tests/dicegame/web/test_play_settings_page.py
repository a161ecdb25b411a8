"""The game settings page (issue 40): for guests and accounts, in English and Dutch; a bad value gets a
clear 400 shown on the page and changes nothing; a good one applies at once and leads back to the game."""

import pytest
from django.test import Client

from accounts.models import Profile
from dicegame.models import Game, Player
from tests.support.factories import client_for

pytestmark = pytest.mark.django_db


def test_the_page_offers_the_choices_and_says_the_rule_in_both_languages(user):
    page = client_for(user).get("/settings/").content.decode()
    assert "Time to choose a box after the last roll" in page
    assert 'value="3" checked' in page and 'value="off"' in page
    assert "Choosing a box stops the countdown." in page
    assert "allow up to 10 seconds" in page
    dutch = client_for(user, language="nl").get("/settings/").content.decode()
    assert "Tijd om een vakje te kiezen na de laatste worp" in dutch


@pytest.mark.parametrize("form", [{"auto_commit": "7", "computer_speed": "normal"}, {"auto_commit": "10"}])
def test_a_bad_value_gets_a_400_with_its_message_and_changes_nothing(user, form):
    client = client_for(user)
    answer = client.post("/settings/", form)
    assert answer.status_code == 400
    page = answer.content.decode()
    assert 'role="alert"' in page
    assert "3, 6 or 10 seconds, or off" in page or "normal or fast" in page
    assert not Profile.objects.filter(user=user, auto_commit_seconds__isnull=False).exists()
    dutch = client_for(user, language="nl").post("/settings/", form)
    assert dutch.status_code == 400 and "kies" in dutch.content.decode()


def test_a_guest_s_choice_is_kept_in_the_session_and_applies_to_the_next_game():
    guest = Client()
    answer = guest.post("/settings/", {"auto_commit": "off", "computer_speed": "fast", "next": "/games/"})
    assert answer.status_code == 302 and answer["Location"] == "/games/"
    guest.post("/games/computer/", {"strength": "easy"})
    game = Game.objects.get()
    assert game.fast_computer
    assert Player.objects.get(game=game, seat=0).auto_commit_seconds == 0
    page = guest.get("/settings/").content.decode()
    assert 'value="off" checked' in page and 'value="fast" checked' in page


def test_it_leads_back_only_to_this_site(user):
    client = client_for(user)
    answer = client.post(
        "/settings/", {"auto_commit": "6", "computer_speed": "normal", "next": "https://elsewhere.example/"}
    )
    assert answer.status_code == 302 and answer["Location"] == "/settings/"
    assert Profile.objects.get(user=user).auto_commit_seconds == 6
