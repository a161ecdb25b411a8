"""Issue 40's minor items, as the server renders them: the end card (no "26 to go" after the end, a
sign-up nudge for a guest, a win marked for its celebration), times with their zone and "less than a
minute", a correspondence game that repeats its pace, its rule and its deadline as a clock time, and no
developer's words on a tournament's page."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.test import Client
from django.utils import formats, timezone, translation

from core.times import clock_time, time_left
from dicegame import play
from dicegame.models import Game, Player, Turn
from tests.support.factories import actor, client_for
from tests.support.games import make_game, started_two_player_game
from tests.support.tournaments import tournament_of

pytestmark = pytest.mark.django_db

DAY = 24 * 3600


def test_after_the_end_the_bonus_is_what_it_is_not_points_to_go(user, user_client):
    game = make_game([user, "easy"])
    page = user_client.get(f"/games/{game.pk}/").content.decode()
    assert "to go" not in page and "data-to-go" not in page
    # While the game is played, a seat short of the bonus is told how far it is.
    playing = play.game_create_solo(actor=actor(user))
    assert "63 to go" in user_client.get(f"/games/{playing.pk}/").content.decode()


def test_a_guest_s_end_card_nudges_to_sign_up_and_an_account_s_does_not(user, user_client):
    guest = Client()
    guest.post("/games/solo/")
    game = Game.objects.get()
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, finished_at=timezone.now())
    card = guest.get(f"/games/{game.pk}/").content.decode()
    assert "data-signup-nudge" in card and f'href="/accounts/signup/?next=/games/{game.pk}/"' in card
    dutch = Client()
    dutch.cookies = guest.cookies
    dutch.cookies["django_language"] = "nl"
    assert "Maak een account" in dutch.get(f"/games/{game.pk}/").content.decode()
    mine = make_game([user, "easy"])
    assert "data-signup-nudge" not in user_client.get(f"/games/{mine.pk}/").content.decode()


def test_a_win_is_marked_for_its_celebration_and_a_loss_is_not(user, user_client):
    game = make_game([user, "easy"])
    Player.objects.filter(game=game, user=user).update(rank=1)
    Player.objects.filter(game=game, user__isnull=True).update(rank=2)
    page = user_client.get(f"/games/{game.pk}/").content.decode()
    assert re.search(r'<section id="game-result"[^>]* data-won>', page) and "end.css" in page
    Player.objects.filter(game=game, user=user).update(rank=2)
    Player.objects.filter(game=game, user__isnull=True).update(rank=1)
    assert "data-won" not in user_client.get(f"/games/{game.pk}/").content.decode()


def test_times_say_less_than_a_minute_and_full_ones_their_zone():
    now = timezone.now()
    assert time_left(now + dt.timedelta(seconds=40), now) == "less than a minute"
    assert time_left(now - dt.timedelta(seconds=5), now) == "less than a minute"
    assert time_left(now + dt.timedelta(hours=5, minutes=2), now) == "5\xa0hours, 2\xa0minutes"
    with translation.override("nl"):
        assert time_left(now + dt.timedelta(seconds=40), now) == "minder dan een minuut"
    winter = dt.datetime(2026, 12, 1, 22, 0, tzinfo=dt.UTC)
    with timezone.override("Europe/Amsterdam"):
        assert clock_time(winter) == "1 Dec 2026, 23:00 CET"
    with timezone.override("America/New_York"), translation.override("nl"):
        assert clock_time(winter) == "1 dec 2026, 17:00 EST"
    # Lists keep their short form.
    assert formats.get_format("SHORT_DATETIME_FORMAT") == "j M Y, H:i"


def test_a_correspondence_game_repeats_its_pace_its_rule_and_its_deadline(host, friend):
    game = started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
    deadline = timezone.now() + dt.timedelta(hours=5, seconds=30)
    Turn.objects.filter(game=game).update(deadline_at=deadline)
    client = client_for(host)
    client.cookies["penta_tz"] = "Europe/Amsterdam"
    page = client.get(f"/games/{game.pk}/").content.decode()
    rule = re.search(r'<p class="small pace-rule" data-pace-rule>(.*?)</p>', page, re.S).group(1)
    assert (
        "Correspondence, a day a move" in rule and "a move not made in time is played by the computer" in rule
    )
    with timezone.override("Europe/Amsterdam"):
        when = clock_time(deadline)
    timer = re.search(r"<p class=\"turn-timer\" data-move-deadline>(.*?)</p>", page).group(1)
    assert timer == f"Time left for hana: 5\xa0hours (until {when})"
    assert when.endswith(("CET", "CEST"))
    Turn.objects.filter(game=game).update(deadline_at=timezone.now() + dt.timedelta(seconds=20))
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "Time left for hana: less than a minute" in page and "0\xa0minutes" not in page


def test_a_tournament_page_says_how_to_check_the_dice_for_people(user, user_client):
    t = tournament_of(user)
    page = user_client.get(f"/tournaments/{t.pk}/").content.decode()
    assert "manage.py" not in page and "README" not in page
    assert "data-verify-dice" in page and "give a closed round's seed to any SHA-256 tool" in page
