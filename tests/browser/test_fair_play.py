"""Fair play in real browsers: staff review a flagged account in the admin and mark it (the marked
person sees the notice and the way to appeal) or clear it (it is back on a friend's leaderboard); the
game page reports a page hidden during one's own turn of a rated game, once a turn; and the fair-play
page, linked from every page's footer, in English and Dutch.

Playwright's own pages never become hidden: it turns on focus emulation for every page it drives, and
Chromium keeps such a page visible whatever happens to its tab. The hidden-page test therefore drives
a Chromium of its own over CDP without those overrides (`tabs`), where bringing another tab to the
front hides the game's page as it would for a person."""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, BrowserContext, Page, expect

from accounts.models import Profile
from dicegame.models import Turn
from fairplay.models import Case, HiddenTurn
from tests.browser.pages import (
    COUNT_SOCKET_MESSAGES,
    log_in,
    logged_in_page,
    new_page,
    off_the_browsers_loop,
    wait_for_socket_messages,
)
from tests.support.environment import chromium_path
from tests.support.factories import PASSWORD, UserFactory, befriend
from tests.support.fairplay import assess, rated_games
from tests.support.games import two_player_game

pytestmark = pytest.mark.django_db(transaction=True)

ASSESSED = 8  # rated games of the solver's play: enough to flag the account (tests/fairplay)
BEACON_WAIT_S = 5.0


def flagged_account(username: str) -> tuple[object, list]:
    """An account whose rated games were played by the solver, assessed as the clock would: flagged."""
    user = UserFactory(username=username)
    games = rated_games(user, ASSESSED)
    assess()
    assert Case.objects.get(user=user).status == Case.Status.FLAGGED
    assert Profile.objects.get(user=user).standing == Profile.Standing.REVIEW
    return user, games


def staff_page(browser: Browser, base: str) -> Page:
    """A staff superuser logged in through the admin's own login page, on the admin's index."""
    UserFactory(username="staff", is_staff=True, is_superuser=True)
    page = new_page(browser, {"width": 1280, "height": 900})
    page.goto(f"{base}/admin/")
    expect(page).to_have_url(re.compile(r"/admin/login/\?next=/admin/$"))
    page.get_by_label("Username").fill("staff")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(f"{base}/admin/")
    return page


def open_flagged_case(page: Page, base: str, username: str, case: Case) -> None:
    """From the admin's index: Fair play, its cases, the flagged ones, the account's evidence."""
    page.locator("#content-main").get_by_role("link", name="Fair play", exact=True).click()
    expect(page).to_have_url(f"{base}/admin/fairplay/")
    page.locator("#content-main").get_by_role("link", name="Fair-play cases").click()
    expect(page).to_have_url(f"{base}/admin/fairplay/case/")
    page.locator("#changelist-filter").get_by_role("link", name="Flagged for review").click()
    expect(page).to_have_url(re.compile(r"\?status__exact=flagged$"))
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(1)
    expect(rows).to_contain_text("Flagged for review")
    rows.get_by_role("link", name=username, exact=True).click()
    # The changelist's link leads to the case's evidence (a case is decided, not edited).
    expect(page).to_have_url(base + reverse("admin:fairplay_case_evidence", args=[case.pk]))
    expect(page.locator("#case-status")).to_contain_text("Flagged for review")


def board_row(page: Page, username: str):
    return page.locator(f'#leaderboard [data-board="best"] tr[data-user="{username}"]')


# -- 1. staff mark an account, and the marked person is told how to appeal -----------------------------


def test_staff_review_a_flagged_account_and_mark_it(browser: Browser, live_server_url: str, strategy):
    base = live_server_url
    cheat, games = flagged_account("cheat")
    case = Case.objects.get(user=cheat)
    staff = staff_page(browser, base)
    open_flagged_case(staff, base, "cheat", case)

    # The figures, the chart and one row per assessed game.
    figures = staff.locator("#case-figures")
    expect(figures.locator("tr", has_text="Assessed games").locator("td")).to_have_text(str(ASSESSED))
    expect(figures.locator("tr", has_text="Evidence (natural log").locator("td")).to_have_text(
        f"{case.evidence:.1f}"
    )
    expect(figures.locator("tr", has_text="Suspicious games").locator("td")).to_have_text(
        str(case.suspicious_games)
    )
    expect(staff.locator("#case-chart svg")).to_be_visible()
    suspicious_dots = staff.locator("#case-chart svg circle.chart-dot.suspicious")
    expect(suspicious_dots.first).to_be_attached()
    assert suspicious_dots.count() >= 3, suspicious_dots.count()
    rows = staff.locator("#case-games tbody tr[data-game]")
    expect(rows).to_have_count(len(games))
    assert sorted(int(r.get_attribute("data-game")) for r in rows.all()) == sorted(g.pk for g in games)

    # A game's review opens for staff, though the game is not theirs; and back to the evidence.
    evidence_url = staff.url
    first = games[0]
    staff.locator(f'#case-games tr[data-game="{first.pk}"] [data-game-review]').click()
    expect(staff).to_have_url(f"{base}/games/{first.pk}/review/")
    expect(staff.get_by_role("heading", name=f"Review of game {first.pk}")).to_be_visible()
    expect(staff.locator("#replay")).to_be_visible()
    staff.go_back()
    expect(staff).to_have_url(evidence_url)

    # A note, and the mark.
    staff.locator("#case-note").fill("Solver's choices in every game, at one steady pace.")
    staff.get_by_role("button", name="Mark: unfair play").click()
    expect(staff).to_have_url(evidence_url)
    expect(staff.locator(".messagelist .success")).to_contain_text(
        "Marked: the account is off every board and its rated opponents are refunded."
    )
    expect(staff.locator("#case-status")).to_contain_text("Marked")
    expect(staff.locator("#case-figures")).to_contain_text("Solver's choices in every game")
    case.refresh_from_db()
    assert case.status == Case.Status.MARKED and case.reviewed_by.username == "staff"
    assert Profile.objects.get(user=cheat).standing == Profile.Standing.MARKED

    # The marked person sees the notice on the fair-play page, and the way to appeal.
    player = logged_in_page(browser, base, "cheat")
    player.locator("footer [data-fair-play]").click()
    expect(player).to_have_url(f"{base}/fair-play/")
    notice = player.locator("#marked-notice")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("Staff reviewed your rated and daily games")
    notice.locator("a[data-appeal]").click()
    expect(player).to_have_url(re.compile(r"/report/\?page="))
    expect(player.get_by_role("heading", name="Report a problem")).to_be_visible()
    expect(player.locator("[data-report-page]")).to_have_text("/fair-play/appeal/")
    expect(player.get_by_label("What went wrong?")).to_be_editable()
    expect(player.get_by_role("button", name="Send the report")).to_be_enabled()


# -- 2. staff clear an account: it is back on the leaderboard ------------------------------------------


def test_a_cleared_account_is_back_on_a_friends_leaderboard(browser: Browser, live_server_url: str, strategy):
    base = live_server_url
    sly, _games = flagged_account("sly")
    viewer = UserFactory(username="vera")
    befriend(viewer, sly)
    case = Case.objects.get(user=sly)

    # While flagged, sly's games stay off the leaderboards of everyone else.
    board = logged_in_page(browser, base, "vera")
    board.goto(f"{base}/leaderboard/")
    expect(board.locator("#leaderboard")).to_have_attribute("data-scope", "friends")
    expect(board.locator('#leaderboard [data-board="best"]')).to_be_visible()
    expect(board.locator('#leaderboard tr[data-user="sly"]')).to_have_count(0)

    staff = staff_page(browser, base)
    open_flagged_case(staff, base, "sly", case)
    staff.locator("#case-note").fill("A strong player: the reviews show an honest style.")
    staff.get_by_role("button", name="Clear: honest play").click()
    cleared = "Cleared: the account is back on the boards."
    expect(staff.locator(".messagelist .success")).to_contain_text(cleared)
    expect(staff.locator("#case-status")).to_contain_text("Cleared")
    assert Profile.objects.get(user=sly).standing == Profile.Standing.GOOD

    # Back on the boards: the friend sees sly's best total again.
    board.reload()
    expect(board_row(board, "sly")).to_have_count(1)
    expect(board_row(board, "sly")).to_contain_text("sly")


# -- 3. the game page reports a hidden page during one's own turn, once a turn --------------------------


@pytest.fixture
def tabs(browser: Browser, tmp_path: Path) -> Iterator[BrowserContext]:
    """A Chromium of the test's own, driven over CDP with none of Playwright's page overrides: its tabs
    become hidden when another tab is brought to the front, as a person's would. One context (the
    browser's own), so one person logged in at a time."""
    profile = tmp_path / "chromium"
    process = subprocess.Popen(
        [
            chromium_path(),
            "--headless",
            "--no-sandbox",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            "--window-size=1100,900",
            "--lang=en-GB",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 20
        while not (port_file.exists() and "\n" in port_file.read_text()):
            assert process.poll() is None, "Chromium exited before it listened for DevTools"
            assert time.monotonic() < deadline, "Chromium did not listen for DevTools"
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        own = browser.browser_type.connect_over_cdp(f"http://127.0.0.1:{port}", no_defaults=True)
        context = own.contexts[0]
        try:
            yield context
        finally:
            # The game pages' sockets close before the database is flushed (tests/browser/conftest.py).
            for page in context.pages:
                page.close()
            own.close()
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def hide_behind_another_tab(page: Page) -> Page:
    """Open another tab and bring it to the front: `page` is hidden (checked, not made so)."""
    other = page.context.new_page()
    other.goto(page.url.split("/games/")[0] + "/fair-play/")
    other.bring_to_front()
    eventually(page, lambda: page.evaluate("document.visibilityState"), "hidden")
    return other


def show_again(page: Page, other: Page) -> None:
    other.close()
    page.bring_to_front()
    eventually(page, lambda: page.evaluate("document.visibilityState"), "visible")


def eventually[T](page: Page, read: Callable[[], T], want: T, *, within_s: float = BEACON_WAIT_S) -> None:
    """Poll `read` (the database, the page) until it gives `want`, for a few seconds; waiting on the
    page, so that its events (the responses) keep arriving meanwhile."""
    deadline = time.monotonic() + within_s
    while (got := read()) != want and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert got == want, f"{got!r} != {want!r}"


def hidden_rows(game, user) -> int:
    return HiddenTurn.objects.filter(game=game, user=user).count()


def test_a_page_hidden_during_ones_own_rated_turn_is_reported_once(tabs: BrowserContext, live_server_url):
    base = live_server_url
    game, hana, femke = off_the_browsers_loop(lambda: two_player_game(rated=True))
    turn = Turn.objects.get(game=game, completed_at__isnull=True)
    assert turn.player.user_id == hana.pk
    report_url = reverse("fairplay:hidden", args=[game.pk])
    answers: list[int] = []

    page = tabs.new_page()
    page.on("response", lambda r: answers.append(r.status) if r.url.endswith(report_url) else None)
    page.add_init_script(COUNT_SOCKET_MESSAGES)
    log_in(page, base, "hana")
    page.goto(f"{base}/games/{game.pk}/")
    # The page is live, as a person sees it before looking elsewhere: its socket has sent the board.
    wait_for_socket_messages(page, 1)
    expect(page.locator("#game-form")).to_have_attribute("data-hidden-report", report_url)
    expect(page.locator("#game-form input[name=turn]")).to_have_value(str(turn.number))

    # Hana looks at another tab during her turn: the page says so, and the server keeps it.
    other = hide_behind_another_tab(page)
    eventually(page, lambda: list(answers), [204])  # 403: the report was refused (its CSRF token?)
    eventually(page, lambda: hidden_rows(game, hana), 1)
    row = HiddenTurn.objects.get(game=game, user=hana)
    assert row.turn_number == turn.number

    # Back, and away again in the same turn: reported again, answered, counted once.
    show_again(page, other)
    other = hide_behind_another_tab(page)
    eventually(page, lambda: list(answers), [204, 204])
    assert hidden_rows(game, hana) == 1
    show_again(page, other)
    page.close()

    # Femke's page in the same game, not her turn: hiding it reports nothing, and nothing is kept.
    # (One browser, one person at a time: hana logs out first.)
    page = tabs.new_page()
    page.on("response", lambda r: answers.append(r.status) if r.url.endswith(report_url) else None)
    page.add_init_script(COUNT_SOCKET_MESSAGES)
    page.goto(f"{base}/")
    page.get_by_role("button", name="Log out").click()
    expect(page.locator("nav").get_by_role("link", name="Log in")).to_be_visible()
    log_in(page, base, "femke")
    page.goto(f"{base}/games/{game.pk}/")
    wait_for_socket_messages(page, 1)
    expect(page.locator("#game-form")).to_be_attached()
    expect(page.locator("#game-form")).not_to_have_attribute("data-hidden-report", re.compile(".*"))
    hide_behind_another_tab(page)
    page.wait_for_timeout(1_500)  # as long as a report took above, and more
    assert hidden_rows(game, femke) == 0
    assert answers == [204, 204]
    assert HiddenTurn.objects.count() == 1


# -- 4. the fair-play page, from the footer, in English and Dutch --------------------------------------


def test_the_fair_play_page_from_the_footer_in_both_languages(page: Page, live_server_url: str):
    base = live_server_url
    page.goto(f"{base}/")
    footer_link = page.locator("footer.site-footer a[data-fair-play]")
    expect(footer_link).to_have_text("Fair play")
    footer_link.click()
    expect(page).to_have_url(f"{base}/fair-play/")
    expect(page.get_by_role("heading", name="Fair play", level=1)).to_be_visible()
    for section in ("#what-we-measure", "#the-model", "#what-a-flag-does", "#rating-rules", "#puzzles"):
        expect(page.locator(section)).to_be_visible()
    expect(page.locator("#the-model")).to_have_text("The model, not a threshold")
    expect(page.locator("#marked-notice")).to_have_count(0)

    # The header's language menu: the same page in Dutch.
    page.get_by_label("Language").select_option("nl")
    expect(page.locator("html")).to_have_attribute("lang", "nl")
    expect(page).to_have_url(f"{base}/fair-play/")
    expect(page.get_by_role("heading", name="Eerlijk spel", level=1)).to_be_visible()
