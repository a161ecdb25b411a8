"""A visitor with an invitation link who has no account yet: log in page, then "Sign up", and back at the
room with its "Take a seat" button (on a desktop and on a 360 x 740 phone)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from dicegame.models import Player
from dicegame.play import rooms
from tests.browser.pages import VIEWPORTS
from tests.support.factories import UserFactory, actor

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("screen", list(VIEWPORTS))
@pytest.mark.parametrize("link", ["page", "header"])
def test_invitation_link_then_login_then_sign_up_comes_back_to_the_room(
    browser: Browser, live_server_url: str, screen: str, link: str
):
    viewport = VIEWPORTS[screen]
    username = f"{link}_{screen}"
    host = UserFactory(username=f"host_of_{username}")
    room = rooms.room_create(actor=actor(host), seats=2, turn_seconds=60)
    join = f"/games/join/{room.invite_token}/"
    context = browser.new_context(locale="en-GB", viewport=viewport)
    page = context.new_page()
    try:
        page.goto(f"{live_server_url}{join}")
        expect(page.get_by_role("heading", name="Join a game of Penta")).to_be_visible()
        page.locator("[data-join-login]").get_by_role("link", name="log in").click()
        expect(page.get_by_role("heading", name="Log in")).to_be_visible()
        # No account yet: the login page's own "Sign up", or the one in the header.
        where = page.locator("#main") if link == "page" else page.locator(".site-header")
        where.get_by_role("link", name="Sign up").click()
        expect(page.get_by_role("heading", name="Sign up")).to_be_visible()
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password", exact=True).fill("dice-are-nice-42")
        page.get_by_label("Password confirmation").fill("dice-are-nice-42")
        page.locator("#main").get_by_role("button", name="Sign up").click()
        # Back at the room, signed in, one press from a seat.
        expect(page).to_have_url(re.compile(re.escape(join) + "$"))
        take = page.get_by_role("button", name="Take a seat")
        expect(take).to_be_visible()
        take.click()
        expect(page).to_have_url(re.compile(rf"/games/{room.pk}/$"))
        assert Player.objects.filter(game=room, user__username=username).exists()
    finally:
        context.close()
