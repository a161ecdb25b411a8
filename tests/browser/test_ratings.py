"""A rated room in real browsers: the host ticks "Rated game", the room and the invitation say so, the
friend's seat shows their rating as they sit down, and a visitor without an account is refused the seat
with a message and offered to watch."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from dicegame.models import Game
from ratings.models import PlayerRating
from tests.browser.pages import logged_in_page
from tests.support.factories import UserFactory, befriend

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("viewport", [{"width": 1100, "height": 900}, {"width": 360, "height": 740}])
def test_a_rated_room_from_the_form_to_the_seats(browser: Browser, live_server_url: str, viewport: dict):
    hana, femke = UserFactory(username="hana"), UserFactory(username="femke")
    befriend(hana, femke)
    PlayerRating.objects.create(user=femke, rating=1612.4, rd=80.0, games=30)
    host = logged_in_page(browser, live_server_url, "hana")
    host.set_viewport_size(viewport)
    host.goto(f"{live_server_url}/")
    form = host.locator("form.friends-form")
    form.get_by_label("Rated game (moves ratings; no hints)").check()
    form.get_by_role("button", name="Create a game").click()
    lobby = host.locator("#lobby")
    expect(lobby.locator('[data-room-rated="1"]')).to_contain_text("Rated game")
    expect(lobby.locator("[data-rating-rule]")).to_contain_text("forfeits")
    expect(host.locator("h1 [data-rated]")).to_have_text("rated")
    expect(lobby.locator('li[data-seat="0"] .rating')).to_have_text("unrated")
    game = Game.objects.get()
    assert game.rated

    # Femke opens the link: the join page says rated; she sits down and the host's room shows her
    # settled rating (no "?") at once.
    friend = logged_in_page(browser, live_server_url, "femke")
    friend.goto(f"{live_server_url}/games/join/{game.invite_token}/")
    expect(friend.locator('[data-room-rated="1"]')).to_be_visible()
    friend.get_by_role("button", name="Take a seat").click()
    seat = host.locator('#lobby li[data-seat="1"]')
    expect(seat).to_contain_text("femke")
    expect(seat.locator(".rating")).to_have_attribute("data-rating", "1612")
    expect(seat.locator(".rating abbr")).to_have_count(0)

    # A visitor without an account: refused the seat with the reason, offered to watch.
    visitor = browser.new_context(locale="en-GB", viewport=viewport).new_page()
    response = visitor.goto(f"{live_server_url}/games/join/{game.invite_token}/")
    assert response.status == 403
    expect(visitor.locator("#messages")).to_contain_text("only players with an account can take a seat")
    visitor.locator("[data-watch-link]").click()
    expect(visitor.locator("#lobby")).to_be_visible()
    expect(visitor.get_by_role("button", name="Take a seat")).to_have_count(0)
    for page in (host, friend, visitor):
        page.context.close()
