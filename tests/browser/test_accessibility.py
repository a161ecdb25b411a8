"""An automated accessibility scan with axe-core (vendored in tests/browser/vendor/) of the main screens:
home, a solo game mid-turn, a live game between two people, the review of a finished game, the
statistics, a tournament's page and the list of tournaments; on a desktop and at 360x740, 390x844 and
412x915, light and dark. No violation of impact "serious" or "critical" may remain. axe is injected into
the page, so these contexts bypass the CSP (the site's own pages need no such thing). axe skips disabled
controls in its contrast rule: tests/browser/test_layout.py covers them."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.pages import (
    AXE,
    BLOCKING,
    DESKTOP,
    PHONES,
    log_in,
    new_page,
    off_the_browsers_loop,
    roll,
    scan,
    start_solo,
)
from tests.support.factories import UserFactory, befriend
from tests.support.games import make_game
from tests.support.tournaments import tournament_with_a_round_played

pytestmark = pytest.mark.django_db(transaction=True)


# A desktop and every phone a game screen is made for (issue 40), light and dark.
SCREENS = {"desktop": DESKTOP} | {f"phone-{size}": screen for size, screen in PHONES.items()}


@pytest.mark.parametrize(
    ("viewport", "dark"),
    [(screen, dark) for screen in SCREENS.values() for dark in (False, True)],
    ids=[f"{name}-{'dark' if dark else 'light'}" for name in SCREENS for dark in (False, True)],
)
def test_main_screens_have_no_serious_accessibility_violations(
    browser: Browser, live_server_url: str, viewport: dict, dark: bool
):
    base = live_server_url
    tag = f"{viewport['width']}-{'dark' if dark else 'light'}"
    hana, femke = UserFactory(username=f"hana-{tag}"), UserFactory(username=f"femke-{tag}")
    befriend(hana, femke)
    finished = make_game([hana, "hard"])
    found: dict[str, list[dict]] = {}

    page = new_page(browser, viewport, dark=dark, bypass_csp=True)
    page.goto(base + "/")
    found["home"] = scan(page)
    start_solo(page, base)
    roll(page)
    page.locator('[data-die="3"]').click()
    expect(page.locator('[data-die="3"]')).to_have_attribute("aria-pressed", "true")
    found["solo game mid-turn"] = scan(page)

    # A live game between two people: the host's screen and the other player's.
    log_in(page, base, hana.username)
    page.goto(base + "/")
    page.locator(".friends-form").get_by_role("button", name="Create a game").click()
    expect(page.locator("#lobby")).to_be_visible()
    found["live game lobby (host)"] = scan(page)
    join = page.locator("[data-join-link]").get_attribute("href")
    other = new_page(browser, viewport, dark=dark, bypass_csp=True)
    log_in(other, base, femke.username)
    other.goto(base + join)
    other.get_by_role("button", name="Take a seat").click()
    expect(page.locator("#lobby li[data-seat]")).to_have_count(2)
    page.locator("#lobby").get_by_role("button", name="Start the game").click()
    expect(page.locator("#dice-tray")).to_be_visible()
    expect(other.locator("#dice-tray")).to_be_visible()
    mover = page if page.locator("[data-action=roll]").is_enabled() else other
    roll(mover)
    found["live game (player to move)"] = scan(mover)
    found["live game (player waiting)"] = scan(other if mover is page else page)
    other.context.close()

    page.goto(f"{base}/games/{finished.pk}/review/")
    found["review"] = scan(page)
    page.goto(f"{base}/players/")
    found["statistics"] = scan(page)
    page.goto(f"{base}/leaderboard/")
    found["leaderboard"] = scan(page)
    # A tournament whose first round is over (its results, histogram and seed) and second is open.
    tournament = off_the_browsers_loop(lambda: tournament_with_a_round_played(hana, femke))
    page.goto(f"{base}/tournaments/{tournament.pk}/")
    expect(page.locator("[data-round-result]")).to_have_count(1)
    found["tournament"] = scan(page)
    page.goto(f"{base}/tournaments/")
    found["tournaments"] = scan(page)
    page.context.close()

    print(f"\naxe-core {AXE.parent.name.removeprefix('axe-core-')}, {tag}:")
    for where, violations in found.items():
        summary = ", ".join(f"{v['id']} ({v['impact']})" for v in violations) or "none"
        print(f"  {where}: {summary}")
    blocking = {
        where: [v for v in violations if v["impact"] in BLOCKING]
        for where, violations in found.items()
        if any(v["impact"] in BLOCKING for v in violations)
    }
    assert not blocking, f"serious or critical accessibility violations: {blocking}"
