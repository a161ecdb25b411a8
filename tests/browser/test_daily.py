"""The daily challenge played in Chromium to the end, as a person plays it (the page's buttons), then its
results: the place among friends and everyone, the par, and the share text with its copy button; and
the game's own end card, which leads with them."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from daily import services
from daily.models import DailySeed
from dicegame.models import Game, Player
from dicegame.strategy import Strategy
from dicegame.strategy.analysis import optimal_line
from tests.browser.pages import (
    SCREEN_1280,
    SCREENS,
    WAIT_MS,
    assert_fits_the_phone,
    choose_box,
    confirm,
    in_the_first_screen,
    log_in,
    roll,
    roll_button,
    turn_field,
)
from tests.support.daily import play_the_day
from tests.support.factories import UserFactory, actor, befriend
from tests.support.history import made_up_result

pytestmark = pytest.mark.django_db(transaction=True)


def test_play_the_daily_challenge_to_the_end_and_share_it(browser: Browser, live_server_url: str):
    services.publish_commitments()
    date = services.today()
    me, friend, stranger = UserFactory(username="dana"), UserFactory(username="fenna"), UserFactory()
    befriend(me, friend)
    made_up_result(friend, date, 1000)  # more than a game can score but for Penta bonuses: first place
    made_up_result(stranger, date, 0)  # last place

    context = browser.new_context(locale="en-GB")
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server_url)
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    log_in(page, live_server_url, me.username)

    page.goto(f"{live_server_url}/daily/")
    commitment = DailySeed.objects.get(date=date).commitment
    expect(page.locator("[data-commitment]")).to_have_text(commitment)
    expect(page.locator("[data-played]")).to_have_attribute("data-played", "2")
    expect(page.locator("[data-boards-closed]")).to_be_visible()
    page.get_by_role("button", name="Play today's challenge").click()
    expect(page).to_have_url(re.compile(r"/games/\d+/$"))
    expect(page.locator("[data-commitment]")).to_have_text(commitment)
    expect(page.locator('[data-action="hints"]')).to_have_count(0)  # no hints in the daily

    for turn in range(1, 14):
        expect(turn_field(page)).to_have_value(str(turn))
        expect(roll_button(page)).to_be_enabled()
        roll(page)
        choose_box(page)
        confirm(page, turn)

    game = Game.objects.get(daily_date=date, players__user=me)
    total = Player.objects.get(game=game).total
    expect(page.locator("[data-final-total]")).to_have_attribute("data-final-total", str(total))
    # The seed deals everyone's dice today: the finished page keeps it until the day ends.
    expect(page.locator("[data-seed-secret-until]")).to_be_visible()
    expect(page.locator("[data-seed]")).to_have_count(0)
    assert game.seed not in page.content()

    page.get_by_role("link", name="The daily challenge's results").click()
    expect(page).to_have_url(re.compile(r"/daily/$"))
    par = optimal_line(Strategy.shared(), game.seed, date.isoformat(), seat=0, seat_count=1)["total"]
    expect(page.locator("[data-daily-total]")).to_have_attribute("data-daily-total", str(total))
    expect(page.locator("[data-par]")).to_have_attribute("data-par", str(par))
    # Between the friend's 1000 and the stranger's 0 (a game's Chance alone scores more than 0).
    expect(page.locator("[data-rank]")).to_have_attribute("data-rank", "2")
    expect(page.locator("[data-rank]")).to_have_text("2 of 3")
    expect(page.locator("[data-friends-rank]")).to_have_text("2 of 2")
    expect(page.locator('[data-chart="daily-histogram"] rect.highlight')).to_have_count(1)

    share = page.locator("[data-share-text]")
    lines = share.inner_text().strip().split("\n")
    assert lines[0] == f"Penta daily {date.isoformat()}: {total} (par {par})"
    assert len(lines[1]) == 13 and set(lines[1]) <= {"\U0001f7e9", "\U0001f7e8", "\u2b1b"}
    assert lines[2] == f"{live_server_url}/daily/"
    copy = page.locator('[data-copy-link="#daily-share-text"]')
    expect(copy).to_have_accessible_name("Copy the share text")
    copy.click()
    expect(copy).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == share.inner_text().strip()
    assert game.seed not in page.content()

    # The day's leaderboard, among friends: the friend first, then me.
    friends = page.locator('[data-board="friends"] tbody tr')
    expect(friends).to_have_count(2)
    expect(friends.nth(0)).to_have_attribute("data-user", friend.username)
    expect(friends.nth(1)).to_have_attribute("data-user", me.username)
    # At 360 px nothing scrolls sideways (the share text and the tables wrap).
    page.set_viewport_size({"width": 360, "height": 740})
    for url in ("/daily/", "/daily/all-time/", f"/daily/{date.isoformat()}/"):
        page.goto(live_server_url + url)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), url
    context.close()


@pytest.mark.parametrize("viewport", list(SCREENS.values()), ids=list(SCREENS))
def test_the_daily_end_card_leads_with_place_par_and_share(browser: Browser, live_server_url: str, viewport):
    """Issue 22, item 10: the end of the daily shows the place, the par and the share text first, and
    leads to the day's results, not to another (ordinary) game."""
    services.publish_commitments()
    date = services.today()
    me, friend = UserFactory(username="lena"), UserFactory(username="femke")
    befriend(me, friend)
    made_up_result(friend, date, 1000)
    game = play_the_day(actor(me), turns=12)  # the last turn is played on the page

    context = browser.new_context(locale="en-GB", viewport=viewport, timezone_id="Europe/Amsterdam")
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server_url)
    page = context.new_page()
    log_in(page, live_server_url, me.username)
    page.goto(f"{live_server_url}/games/{game.pk}/")
    expect(turn_field(page)).to_have_value("13")
    roll(page)
    choose_box(page)
    confirm(page, 13)

    card = page.locator("#game-result")
    expect(card.get_by_role("heading", name="Daily challenge: your result")).to_be_visible()
    total = Player.objects.get(game=game).total
    par = DailySeed.objects.get(date=date).par
    expect(card.locator("[data-final-total]")).to_have_text(str(total))
    expect(card.locator("[data-vs-par]")).to_have_attribute("data-vs-par", str(total - par))
    expect(card.locator("[data-rank]")).to_have_text("2 of 2")
    expect(card.locator("[data-friends-rank]")).to_have_text("2 of 2")
    expect(card.locator("[data-play-again]")).to_have_count(0)
    # Seen first, without scrolling: the place and the par (on a desktop the share button too).
    assert in_the_first_screen(page, card.locator("[data-rank]"))
    assert in_the_first_screen(page, card.locator("[data-vs-par]"))
    copy = card.locator('[data-copy-link="#daily-end-share-text"]')
    expect(copy).to_have_accessible_name("Copy the share text")
    if viewport == SCREEN_1280:
        assert in_the_first_screen(page, copy)
    else:
        assert_fits_the_phone(page)
    share = card.locator("[data-share-text]")
    assert share.inner_text().strip().startswith(f"Penta daily {date.isoformat()}: {total} (par {par})")
    copy.click()
    expect(copy).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == share.inner_text().strip()
    # Midnight, and whose midnight: the zone's name follows the time.
    expect(card.locator("[data-next-daily]")).to_contain_text(re.compile(r", 00:00 [A-Z][A-Za-z0-9+-]*\."))

    card.get_by_role("link", name="The day's results and leaderboard").click()
    expect(page).to_have_url(re.compile(r"/daily/$"))
    expect(page.locator('[data-board="friends"] tbody tr')).to_have_count(2)
    context.close()
