"""Penta as an installable app around the game page: the pages around the game link the manifest and
register the service worker; the game page carries neither (it loads no more than it must), yet the
worker registered elsewhere controls it. With the network gone mid-turn, reloading the game shows the
offline page in the site's look (kept by the worker), and back online the game is as the server has
it: the worker keeps no game's state."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.pages import (
    LAPTOP,
    dice_values,
    manifest_link,
    new_page,
    roll,
    rolls_field,
    service_worker_controller,
    service_worker_ready,
    start_solo,
)

pytestmark = pytest.mark.django_db(transaction=True)

AROUND_THE_GAME = ("/", "/games/", "/puzzles/", "/daily/", "/accounts/login/", "/accounts/signup/")

# Whether the offline page's stylesheet and logo came with it (from the worker's cache, offline).
OFFLINE_PAGE_LOOKS_LIKE_THE_SITE = """() => ({
  stylesheet: [...document.styleSheets].some((s) => s.href && s.href.endsWith("/css/penta.css")
    && s.cssRules.length > 0),
  logo: [...document.images].some((i) => i.src.endsWith("/img/logo.svg") && i.complete
    && i.naturalWidth > 0),
})"""


def test_the_worker_registered_around_the_game_controls_the_game_page(browser: Browser, live_server_url: str):
    page = new_page(browser, LAPTOP)
    # The pages around the game link the manifest and load the script that registers the worker.
    for path in AROUND_THE_GAME:
        page.goto(live_server_url + path)
        expect(manifest_link(page)).to_have_attribute("href", "/manifest.webmanifest")
        expect(page.locator('head script[src$="/js/app.js"]')).to_have_count(1)
    assert service_worker_ready(page) == f"{live_server_url}/sw.js"

    # The worker's script comes from the site's root, for the whole site, fetched afresh on each visit.
    script = page.request.get(f"{live_server_url}/sw.js")
    assert script.status == 200
    assert script.headers["content-type"].startswith("text/javascript")
    assert script.headers["service-worker-allowed"] == "/"
    assert "no-cache" in script.headers["cache-control"]
    assert "__OFFLINE_URL__" not in script.text()

    # The game page has no manifest and no app script, yet the worker controls it and it plays.
    game_id = start_solo(page, live_server_url)
    game_url = f"{live_server_url}/games/{game_id}/"
    expect(manifest_link(page)).to_have_count(0)
    expect(page.locator('script[src$="/js/app.js"]')).to_have_count(0)
    controller = service_worker_controller(page)
    assert controller == f"{live_server_url}/sw.js", controller
    dice = roll(page)

    # The network goes mid-turn: reloading the game shows the offline page, at the game's address,
    # with the site's stylesheet and logo from the worker's cache.
    page.context.set_offline(True)
    page.reload()
    expect(page.get_by_role("heading", name="No connection")).to_be_visible()
    expect(page).to_have_url(game_url)
    assert page.evaluate(OFFLINE_PAGE_LOOKS_LIKE_THE_SITE) == {"stylesheet": True, "logo": True}
    expect(page.locator("#dice-tray")).to_have_count(0)

    # Back online: the same game, the same roll, the same dice (the server kept them, not the worker).
    page.context.set_offline(False)
    page.reload()
    expect(page.locator("#dice-tray")).to_be_visible()
    expect(rolls_field(page)).to_have_value("1")
    assert dice_values(page) == dice
    assert service_worker_controller(page) == f"{live_server_url}/sw.js"
