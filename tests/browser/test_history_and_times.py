"""My games and the times on the pages, in Chromium at 1280x900 and 360x740 (issue 22, items 11 and 12):
on a phone every game's result and its Review link are on screen and the page never scrolls sideways;
times are in the browser's own zone (reported by the page itself), or in the zone chosen on the
preferences page, in a format that reads one way in English and Dutch."""

from __future__ import annotations

import datetime as dt

import pytest
from playwright.sync_api import Browser, expect

from dicegame.models import Game
from tests.browser.pages import (
    SCREEN_1280,
    SCREENS,
    assert_fits_the_phone,
    history_row,
    log_in,
    page_widths,
    shown_time,
    within_the_width,
)
from tests.support.factories import UserFactory, befriend
from tests.support.games import make_game

pytestmark = pytest.mark.django_db(transaction=True)

AT = dt.datetime(2026, 12, 1, 19, 14, tzinfo=dt.UTC)  # 20:14 in Amsterdam (winter), 04:14 next day in Tokyo


@pytest.mark.parametrize("viewport", list(SCREENS.values()), ids=list(SCREENS))
def test_my_games_show_every_result_and_review_link(browser: Browser, live_server_url: str, viewport):
    user = UserFactory(username="mira")
    friend = UserFactory(username="an-opponent-with-a-really-long-name")
    befriend(user, friend)
    games = [
        make_game([user, "easy", "medium", "hard"]),
        make_game([user, friend], kind=Game.Kind.FRIENDS),
        make_game([user]),
    ]
    context = browser.new_context(locale="en-GB", viewport=viewport, timezone_id="Europe/Amsterdam")
    page = context.new_page()
    log_in(page, live_server_url, user.username)
    page.goto(f"{live_server_url}/games/")
    for game in games:
        row = history_row(page, game.pk)
        result, review = row.locator("[data-status]"), row.locator("[data-review]")
        expect(result).to_be_visible()
        expect(review).to_be_visible()
        review.scroll_into_view_if_needed()
        assert within_the_width(page, result), (game.pk, result.bounding_box())
        assert within_the_width(page, review), (game.pk, review.bounding_box())
    if viewport == SCREEN_1280:
        expect(page.locator("#main table.history-games thead")).to_be_visible()  # the table as it was
    else:
        assert_fits_the_phone(page)
        assert page_widths(page)[0] <= viewport["width"]
    # The Review link of the last row leads to that game's review.
    history_row(page, games[0].pk).locator("[data-review]").click()
    expect(page).to_have_url(f"{live_server_url}/games/{games[0].pk}/review/")
    context.close()


@pytest.mark.parametrize("viewport", list(SCREENS.values()), ids=list(SCREENS))
def test_times_are_in_the_browsers_zone_then_the_chosen_one(browser: Browser, live_server_url: str, viewport):
    user = UserFactory(username="amira")
    game = make_game([user, "easy"])
    Game.objects.filter(pk=game.pk).update(created_at=AT, finished_at=AT)
    context = browser.new_context(locale="en-GB", viewport=viewport, timezone_id="Europe/Amsterdam")
    page = context.new_page()
    log_in(page, live_server_url, user.username)  # the pages say the browser's zone (app.js)
    assert {"name": "penta_tz", "value": "Europe/Amsterdam"}.items() <= next(
        c for c in context.cookies() if c["name"] == "penta_tz"
    ).items()
    page.goto(f"{live_server_url}/games/")
    expect(shown_time(page, game.pk)).to_have_text("1 Dec 2026, 20:14")  # not 19:14, nor 12/01/2026 7 p.m.
    context.add_cookies([{"name": "django_language", "value": "nl", "url": live_server_url}])
    page.reload()
    expect(shown_time(page, game.pk)).to_have_text("1 dec 2026, 20:14")

    # A zone of one's own, on the preferences page the name in the header leads to.
    page.locator("nav").get_by_role("link", name=user.username).click()
    expect(page).to_have_url(f"{live_server_url}/accounts/preferences/")
    page.get_by_label("Tijden tonen in").select_option("Asia/Tokyo")
    page.get_by_role("region", name="Tijdzone").get_by_role("button", name="Opslaan").click()
    expect(page.locator(".msg-success")).to_contain_text("Asia/Tokyo")
    page.goto(f"{live_server_url}/games/")
    expect(shown_time(page, game.pk)).to_have_text("2 dec 2026, 04:14")
    if viewport["width"] < 400:
        assert_fits_the_phone(page)
    context.close()
