"""A finished daily game's end card (issue 22, item 10): it leads with the place among friends and
everyone, the total against par and the share text, links the day's results and leaderboard, says when
the next challenge opens, and offers no "Play again" (an ordinary solo game is not the daily)."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from accounts.models import Profile
from daily import services
from daily.models import DailySeed
from dicegame import play
from dicegame.actors import Actor
from dicegame.models import Game
from tests.support.clock import Clock
from tests.support.daily import play_the_day
from tests.support.factories import UserFactory, actor, befriend, client_for
from tests.support.history import made_up_result

pytestmark = pytest.mark.django_db

NOON = dt.datetime(2026, 12, 1, 11, 0, tzinfo=dt.UTC)  # 12:00 in Amsterdam, 2026-12-01
DAY = dt.date(2026, 12, 1)


@pytest.fixture
def clock(monkeypatch):
    return Clock(monkeypatch, NOON)


def end_card(html: str) -> str:
    return re.search(r'<section id="game-result".*?</section>', html, re.S).group(0)


def test_the_daily_end_card_leads_with_place_par_and_share(clock, strategy):
    services.publish_commitments()
    me, friend, stranger = UserFactory(username="dana"), UserFactory(username="fenna"), UserFactory()
    befriend(me, friend)
    Profile.objects.create(user=stranger, leaderboard_opt_in=True)
    made_up_result(friend, DAY, 1000)  # above anything the game scores: first
    made_up_result(stranger, DAY, 0)  # last
    game = play_the_day(actor(me))
    total = game.players.get().total
    par = DailySeed.objects.get(date=DAY).par or services.day_par(DAY)

    client = client_for(me)
    client.cookies["penta_tz"] = "Europe/Amsterdam"
    html = client.get(f"/games/{game.pk}/").content.decode()
    card = end_card(html)
    assert "Daily challenge: your result" in card
    # The daily's figures come first in the card, before the best-total line; the turn log after it all.
    assert card.index("data-daily-end") < card.index("data-result")
    assert html.index('id="game-result"') < html.index('id="log-heading"')
    assert 'data-rank="2"' in card and ">2 of 3<" in card
    assert 'data-friends-rank="2"' in card and ">2 of 2<" in card
    assert f'data-final-total="{total}"' in card and f'data-vs-par="{total - par}"' in card
    assert f"(par {par})" in card
    share = re.search(r"<pre[^>]*data-share-text>(.*?)</pre>", card, re.S).group(1)
    assert share.startswith(f"Penta daily {DAY.isoformat()}: {total} (par {par})")
    assert share.endswith("http://testserver/daily/")
    assert 'data-copy-link="#daily-end-share-text"' in card and 'id="daily-end-share-text"' in card
    assert f'href="/daily/{DAY.isoformat()}/" data-daily-day' in card
    # The next challenge: Amsterdam's next midnight, in the person's zone and format.
    # The zone is said: a reader elsewhere knows whose midnight it is (issue 40).
    assert "The next daily challenge opens 2 Dec 2026, 00:00 CET." in card
    # The share text's squares with their legend beside them.
    assert "One square per box, in the sheet's order: 🟩 scored well · 🟨 scored · ⬛ zero." in card
    # No "Play again": that would be an ordinary solo game.
    assert "data-play-again" not in card and "Play again" not in card
    assert game.seed not in html
    assert "style=" not in card

    # In Dutch, and from New York (the same midnight, at 18:00 there).
    client.cookies["django_language"] = "nl"
    client.cookies["penta_tz"] = "America/New_York"
    card = end_card(client.get(f"/games/{game.pk}/").content.decode())
    assert "Dagelijkse uitdaging: je resultaat" in card
    assert "De volgende dagelijkse uitdaging begint 1 dec 2026, 18:00 EST." in card
    assert "Kopieer" in card and "2 van 3" in card


def test_a_guests_daily_end_card_says_unranked_and_a_solo_game_still_offers_play_again(
    clock, client, strategy
):
    services.publish_commitments()
    made_up_result(UserFactory(), DAY, 1000)
    client.post("/daily/play/")
    game = Game.objects.get(daily_date=DAY, players__user__isnull=True)
    guest = Actor(guest_key=game.players.get().guest_key)
    play_the_day(guest)
    card = end_card(client.get(f"/games/{game.pk}/").content.decode())
    assert "data-unranked" in card and 'data-rank="2"' in card and "data-friends-rank" not in card
    assert "data-play-again" not in card

    # An ordinary solo game keeps its Play again.
    solo = play.game_create_solo(actor=guest)
    play.game_resign(game_id=solo.pk, actor=guest)
    card = end_card(client.get(f"/games/{solo.pk}/").content.decode())
    assert "data-play-again" in card and "data-daily-end" not in card


def test_the_next_challenge_is_not_announced_once_its_day_has_begun(clock, strategy):
    services.publish_commitments()
    me = UserFactory()
    game = play_the_day(actor(me))
    clock.set(NOON + dt.timedelta(days=1))
    services.publish_commitments()
    card = end_card(client_for(me).get(f"/games/{game.pk}/").content.decode())
    assert "data-daily-end" in card and "data-next-daily" not in card
