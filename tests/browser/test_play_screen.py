"""The play screen as a player meets it (issue 22), in Chromium at 1280x900 and on a 360x740 phone: the
dice, the actions and the whole sheet in one desktop screen; a zero asked at its box, answered in one
tap, with the countdown held meanwhile; the game's keys after a click; a box the server wrote for the
player said, marked and celebrated; one banner at a time; a spectator following the table into the
rematch; the proof of the dice one click away; the status line saying what really happens.

Positions are set in the database where the dice matter (they come from the seed otherwise), then the
page is loaded; every wait is for a change in the page or in the database, never a fixed sleep."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect

from dicegame import play
from dicegame.models import Game, Player, Turn
from dicegame.play import rooms
from dicegame.rules.scoring import Box
from tests.browser.pages import (
    BLOCKING,
    PLAY_SCREENS,
    box_button,
    confirm_button,
    die,
    logged_in_page,
    new_page,
    off_the_browsers_loop,
    on_screen,
    outline_rect,
    overlap,
    rect,
    rig_dice,
    roll,
    roll_button,
    rolls_field,
    scan,
    start_against_computers,
    start_solo,
    turn_field,
    uncovered,
)
from tests.support.factories import UserFactory, actor, befriend
from tests.support.games import current

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(params=sorted(PLAY_SCREENS))
def screen(request) -> dict:
    return PLAY_SCREENS[request.param]


def wide(screen: dict) -> bool:
    return screen["width"] > 760


def friends_game(host, friend) -> Game:
    """A started game of two friends (host to move), with its invitation link: made with the services."""
    befriend(host, friend)
    game = rooms.room_create(actor=actor(host), seats=2, turn_seconds=0)
    rooms.room_join_by_link(token=game.invite_token, actor=actor(friend))
    rooms.room_start(game_id=game.pk, actor=actor(host))
    game.refresh_from_db()
    return game


def third_roll(page: Page, game_id: int, dice: list[int], *, due_in: float) -> None:
    """Three rolls through the page, then the dice of the last one set to `dice` and its auto-commit
    due `due_in` seconds from now (as if rolled now), and the page reloaded to show them."""
    for _ in range(3):
        roll(page)
    turn = current(game_id)
    now = timezone.now()
    Turn.objects.filter(pk=turn.pk).update(
        dice=dice,
        rolls=[*turn.rolls[:-1], {"dice": dice, "held": [False] * 5}],
        roll_times=[*turn.roll_times[:-1], now.timestamp()],
        auto_commit_at=now + timedelta(seconds=due_in),
    )
    page.reload()
    expect(page.locator("[data-countdown-ms]")).to_be_visible()


# -- item 1 and 13: dice, actions and the whole sheet in one screen ------------------------------------


def assert_board_fits(page: Page, screen: dict, *, spectator: bool = False) -> None:
    """On a desktop: the dice, Roll and Confirm and the whole sheet (down to its Total) in the window
    at once. On a phone: the dice and the actions pinned in reach, the sheet's top in view above them."""
    parts = {"dice": page.locator("#dice-tray")}
    if not spectator:
        parts |= {"Roll": roll_button(page), "Confirm": confirm_button(page)}
    if wide(screen):
        parts |= {"sheet": page.locator("#scoresheet"), "Total": page.locator("#scoresheet tfoot")}
        if page.locator("#win-bar").count():
            parts["winning chances"] = page.locator("#win-bar")
    found = {name: rect(locator) for name, locator in parts.items()}
    off = {name: box for name, box in found.items() if not on_screen(box, screen)}
    assert not off, f"off the {screen['width']}x{screen['height']} screen: {off}"
    if not wide(screen):
        dock = rect(page.locator("#dock"))
        assert rect(page.locator("#scoresheet"))["y"] < dock["y"], "the sheet starts under the dock"


def test_a_solo_game_fits_the_screen(browser: Browser, live_server_url: str, screen: dict):
    page = new_page(browser, screen)
    start_solo(page, live_server_url)
    roll(page)
    assert_board_fits(page, screen)
    page.context.close()


def test_a_game_against_the_computer_with_its_chances_fits_the_screen(
    browser: Browser, live_server_url: str, screen: dict
):
    user = UserFactory()
    page = logged_in_page(browser, live_server_url, user.username, viewport=screen)
    start_against_computers(page, live_server_url, "easy", "easy", "easy")
    page.get_by_role("button", name="Show the winning chances").click()
    expect(page.get_by_role("button", name="Hide the winning chances")).to_be_visible()
    # The figures (worked out in a child process: it may take a while on a busy machine).
    expect(page.locator("#win-bar [data-win-chances]")).to_be_visible(timeout=60_000)
    roll(page)
    assert_board_fits(page, screen)
    if wide(screen):
        # Beside the dice, not between them and the sheet.
        bar, dice = rect(page.locator("#win-bar")), rect(page.locator("#dice-tray"))
        assert bar["x"] > dice["x"] + dice["width"], (bar, dice)
    page.context.close()


def test_a_spectator_sees_the_dice_and_the_whole_sheet(browser: Browser, live_server_url: str, screen: dict):
    game = friends_game(UserFactory(username="hana"), UserFactory(username="femke"))
    page = new_page(browser, screen)
    page.goto(f"{live_server_url}/games/{game.pk}/?t={game.invite_token}")
    expect(page.locator("[data-spectator]")).to_be_visible()
    expect(page.locator("#win-bar")).to_be_visible()
    assert_board_fits(page, screen, spectator=True)
    page.context.close()


# -- item 2: a zero is asked at its box -----------------------------------------------------------------


def test_a_zero_is_asked_at_its_box_and_yes_writes_it(browser: Browser, live_server_url: str, screen: dict):
    page = new_page(browser, screen)
    game_id = start_solo(page, live_server_url)
    # A large straight after the third roll: Penta would score 0. The auto-commit is due in 6 s.
    third_roll(page, game_id, [1, 2, 3, 4, 5], due_in=6)
    due = current(game_id).auto_commit_at
    penta = box_button(page, "PENTA")
    penta.click()
    question = page.locator("[data-zero-question]")
    expect(question).to_contain_text("Write 0 in Penta? Large straight would score 40.")
    # At the box tapped: the row under it, in view, nothing pinned over its answer.
    yes = page.get_by_role("button", name="Yes, write 0 in Penta")
    expect(yes).to_be_focused()
    penta_row = rect(page.locator('#scoresheet tr.box-row:has([data-box="PENTA"])'))
    asked = rect(question)
    assert abs(asked["y"] - (penta_row["y"] + penta_row["height"])) < 4, (asked, penta_row)
    assert on_screen(asked, screen), asked
    assert uncovered(yes), "the question's Yes is covered"
    expect(penta).to_have_attribute("aria-pressed", "false")
    # The countdown holds while the question is open: past the auto-commit's own time, nothing written.
    assert current(game_id).auto_commit_at > due
    while timezone.now() < due + timedelta(seconds=1):
        page.wait_for_timeout(200)
    assert current(game_id).number == 1, "the auto-commit wrote behind the open question"
    expect(question).to_be_visible()
    # The hold ends 4-6 s from here (QUESTION_HOLD_SECONDS after the tap, at most after the countdown's
    # own time): on a loaded machine the browser's next click came later than that once, and the clock
    # rightly wrote the turn. What follows is about the answer, not the clock: it gets time enough.
    later = timezone.now() + timedelta(seconds=60)
    Turn.objects.filter(game_id=game_id, number=1).update(auto_commit_at=later)
    # Yes writes the 0 at once: no Confirm.
    yes.click()
    expect(turn_field(page)).to_have_value("2")
    cell = page.locator('#scoresheet tr.box-row:has([data-box="PENTA"]) td').first
    expect(cell).to_have_attribute("data-score", "0")
    expect(question).to_have_count(0)
    written = Turn.objects.get(game_id=game_id, number=1)
    assert (written.box, written.points, written.auto_committed) == ("PENTA", 0, False)
    page.context.close()


def test_no_takes_the_question_away(browser: Browser, live_server_url: str, screen: dict):
    page = new_page(browser, screen)
    game_id = start_solo(page, live_server_url)
    rig_dice(game_id, [1, 2, 3, 4, 5])
    page.reload()
    box_button(page, "FULL_HOUSE").click()
    question = page.locator("[data-zero-question]")
    expect(question).to_contain_text("Write 0 in Full house?")
    page.get_by_role("link", name="No", exact=True).click()
    expect(question).to_have_count(0)
    expect(page).to_have_url(re.compile(rf"/games/{game_id}/$"))  # the board redrawn, not left
    expect(box_button(page, "FULL_HOUSE")).to_have_attribute("aria-pressed", "false")
    assert current(game_id).chosen_box == ""
    page.context.close()


# -- item 3: the keys after a click ---------------------------------------------------------------------


def test_space_rolls_after_a_die_is_clicked_and_enter_confirms_after_a_box(
    browser: Browser, live_server_url: str, screen: dict
):
    page = new_page(browser, screen)
    game_id = start_solo(page, live_server_url)
    roll(page)
    die(page, 2).click()
    expect(die(page, 2)).to_have_attribute("aria-pressed", "true")
    expect(die(page, 2)).to_be_focused()
    expect(page.locator("#game[data-roll-cooling], #game[data-busy]")).to_have_count(0)
    page.keyboard.press("Space")
    expect(rolls_field(page)).to_have_value("2")
    # Space rolled; it did not release the die it found focused.
    expect(die(page, 2)).to_have_attribute("aria-pressed", "true")
    box = page.locator("#scoresheet button.box-button:not([disabled]):not([data-asks-zero])").first
    name = box.get_attribute("data-box")
    box.click()
    expect(box).to_have_attribute("aria-pressed", "true")
    expect(box).to_be_focused()
    page.keyboard.press("Enter")
    expect(turn_field(page)).to_have_value("2")
    assert Turn.objects.get(game_id=game_id, number=1).box == name
    page.context.close()


# -- item 4: a box written for the player, and its moments ----------------------------------------------


def test_a_box_the_clock_writes_is_said_marked_and_celebrated(
    browser: Browser, live_server_url: str, screen: dict, strategy
):
    page = new_page(browser, screen)
    game_id = start_solo(page, live_server_url)
    third_roll(page, game_id, [5, 5, 5, 5, 5], due_in=2)
    # The clock writes the roll before the page's own tick comes (as the clock process does): the
    # page still learns what was written, and cheers for it.
    turn = current(game_id)
    Turn.objects.filter(pk=turn.pk).update(auto_commit_at=timezone.now())
    off_the_browsers_loop(lambda: play.games_settle_overdue(game_ids=[game_id]))
    assert Turn.objects.get(pk=turn.pk).box == "PENTA"
    expect(turn_field(page)).to_have_value("2")
    expect(page.locator("#turn-status [data-written-note]")).to_have_text("Written for you: 50 in Penta")
    cell = page.locator('#scoresheet tr.box-row:has([data-box="PENTA"]) td[data-written-for]')
    expect(cell).to_have_attribute("data-score", "50")
    banner = page.locator("#moment-toasts [data-moment-toast]")
    expect(banner).to_contain_text("Penta! 50 points.")
    # Said once, in the turn status: the banner does not repeat it (issue 40), nor cover the menu.
    expect(banner).not_to_contain_text("Written for you")
    expect(page.locator(":text-is('Written for you: 50 in Penta'):visible")).to_have_count(1)
    assert not overlap(rect(banner), rect(page.locator("[data-header-menu] summary")))
    # The next roll is the player's again: the note has done its work.
    roll(page)
    expect(page.locator("[data-written-note]")).to_have_count(0)
    page.context.close()


# -- item 8: one banner at a time, off the joker's sentence ---------------------------------------------


def test_banners_never_stack(browser: Browser, live_server_url: str, screen: dict):
    page = new_page(browser, screen)
    game_id = start_solo(page, live_server_url)
    # 3 + 6 + 9 + 12 + 15 = 45 in the upper boxes, Penta filled with 50: five 6s written in Sixes
    # (the forced joker's box) bring a Penta bonus and the upper bonus at once.
    upper = {"ONES": 3, "TWOS": 6, "THREES": 9, "FOURS": 12, "FIVES": 15, "PENTA": 50}
    Player.objects.filter(game_id=game_id).update(boxes=upper, total=95)
    Turn.objects.filter(game_id=game_id).update(number=7, round=7)
    rig_dice(game_id, [6] * 5)
    page.reload()
    banners = page.locator("#moment-toasts [data-moment-toast]")
    expect(banners).to_contain_text("Penta! Five 6s.")
    expect(page.locator("[data-joker]")).to_be_visible()
    box_button(page, "SIXES").click()
    expect(box_button(page, "SIXES")).to_have_attribute("aria-pressed", "true")
    confirm_button(page).click()
    expect(banners).to_contain_text("a Penta bonus of 100")
    expect(banners).to_have_count(1)
    expect(banners).to_contain_text("Upper bonus reached: +35!")
    expect(banners).not_to_contain_text("Five 6s")  # replaced, not stacked
    page.context.close()


def test_the_banner_leaves_the_joker_sentence_readable(browser: Browser, live_server_url: str, screen: dict):
    page = new_page(browser, screen)
    game_id = start_solo(page, live_server_url)
    Player.objects.filter(game_id=game_id).update(boxes={"PENTA": 50}, total=50)
    rig_dice(game_id, [4] * 5)
    page.reload()
    banner = page.locator("#moment-toasts [data-moment-toast]")
    expect(banner).to_have_count(1)
    joker = page.locator("[data-joker]")
    expect(joker).to_be_visible()
    assert not overlap(rect(banner), rect(joker)), "the banner covers the joker's sentence"
    assert not overlap(rect(banner), rect(page.locator("#dice-tray"))), "the banner covers the dice"
    page.context.close()


# -- item 12: a spectator follows the table into the rematch --------------------------------------------


def test_a_spectator_is_taken_to_the_rematch(browser: Browser, live_server_url: str, screen: dict):
    host, friend = UserFactory(username="hana"), UserFactory(username="femke")
    game = friends_game(host, friend)
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, finished_at=timezone.now())
    watcher = new_page(browser, screen)  # not logged in: the invitation link lets them watch
    watcher.goto(f"{live_server_url}/games/{game.pk}/?t={game.invite_token}")
    expect(watcher.locator("[data-rematch-watch]")).to_be_visible()
    expect(watcher.locator("#game[ws-connect]")).to_have_count(1)
    first = logged_in_page(browser, live_server_url, host.username, viewport=screen)
    first.goto(f"{live_server_url}/games/{game.pk}/")
    first.get_by_role("button", name="Rematch", exact=True).click()
    expect(first.locator("[data-rematch]")).to_contain_text("waiting for femke")
    expect(watcher.locator("[data-rematch-watch]")).to_contain_text("Ready for a rematch: hana")
    second = logged_in_page(browser, live_server_url, friend.username, viewport=screen)
    second.goto(f"{live_server_url}/games/{game.pk}/")
    second.get_by_role("button", name="Rematch", exact=True).click()
    rematch = Game.objects.get(rematch_of=game)
    expect(second).to_have_url(re.compile(rf"/games/{rematch.pk}/$"))
    expect(watcher).to_have_url(re.compile(rf"/games/{rematch.pk}/\?t=.+$"))
    expect(watcher.locator("[data-spectator]")).to_be_visible()
    expect(watcher.locator("#dice-tray")).to_be_visible()
    watcher.context.close()


# -- item 13: the proof one click away, the status line, the hint's outline -----------------------------


def test_the_dice_proof_is_one_click_away(browser: Browser, live_server_url: str, screen: dict):
    page = new_page(browser, screen)
    start_solo(page, live_server_url)
    fingerprint = page.locator("[data-commitment]")
    expect(fingerprint).to_be_hidden()
    # On a phone the game's heading is one short line, the proof and the report link under the board.
    header = rect(page.locator(".game-header" if wide(screen) else ".game-header h1"))
    assert header["height"] <= (60 if wide(screen) else 30), f"the game's header is {header['height']} px"
    page.get_by_text("Fair dice", exact=True).click()
    expect(fingerprint).to_be_visible()
    expect(fingerprint).to_have_text(re.compile(r"^[0-9a-f]{64}$"))
    expect(page.locator("[data-fair-dice]")).to_contain_text("so no die could be changed")
    # The end of the game tells how to check, in a player's words (no developer's command).
    page.get_by_text("Resign…").click()
    page.get_by_role("button", name="Yes, resign").click()
    proof = page.locator(".fairness-proof")
    expect(proof).to_contain_text("give the seed to any SHA-256 tool")
    expect(proof).not_to_contain_text("manage.py")
    expect(proof).not_to_contain_text("README")
    page.context.close()


def test_the_status_line_says_whose_turn_it_is(browser: Browser, live_server_url: str, screen: dict):
    host, friend = UserFactory(username="hana"), UserFactory(username="femke")
    game = friends_game(host, friend)
    waiting = logged_in_page(browser, live_server_url, friend.username, viewport=screen)
    waiting.goto(f"{live_server_url}/games/{game.pk}/")
    expect(roll_button(waiting)).to_be_disabled()
    expect(waiting.locator("#turn-status [data-waiting-for]")).to_have_text("hana's turn.")
    expect(waiting.locator("#turn-status")).not_to_contain_text("Roll the dice")
    mover = logged_in_page(browser, live_server_url, host.username, viewport=screen)
    mover.goto(f"{live_server_url}/games/{game.pk}/")
    expect(roll_button(mover)).to_be_enabled()
    expect(mover.locator("#turn-status .hint")).to_contain_text("Roll the dice to start your turn")
    mover.context.close()
    waiting.context.close()


SAYS_ROLL_WHILE_DISABLED = """() => {
  const roll = document.querySelector('#game [data-action="roll"]');
  const says = document.getElementById("turn-status").textContent.includes("Roll the dice");
  return Boolean(roll && roll.disabled && says);
}"""


def test_while_the_computer_plays_the_status_says_so(browser: Browser, live_server_url: str, screen: dict):
    user = UserFactory()
    page = logged_in_page(browser, live_server_url, user.username, viewport=screen)
    game_id = start_against_computers(page, live_server_url, "easy")
    roll(page)
    page.locator("#scoresheet button.box-button:not([disabled]):not([data-asks-zero])").first.click()
    confirm_button(page).click()
    expect(page.locator("[data-bot-playing]")).to_be_visible()
    # Whatever the computer's step, Roll disabled never comes with "Roll the dice" (read at once).
    seen = set()
    while not roll_button(page).is_enabled():
        seen.add(page.evaluate(SAYS_ROLL_WHILE_DISABLED))
        page.wait_for_timeout(100)
    assert seen == {False}, "the page said 'Roll the dice' while Roll was disabled"
    assert current(game_id).player.user_id == user.pk
    page.context.close()


def test_the_hint_outline_keeps_off_the_status_line(browser: Browser, live_server_url: str, screen: dict):
    page = new_page(browser, screen)
    game_id = start_solo(page, live_server_url)
    rig_dice(game_id, [4, 4, 5, 1, 2])
    page.reload()
    page.get_by_role("button", name="Show hints").click()
    marked = page.locator("#dice-tray .die.hint-keep")
    expect(marked.first).to_be_visible()
    # At rest: a die that tumbles (0.45 s after the load) is turned, and its box with it.
    for _ in range(40):
        if not page.evaluate("document.getAnimations().length"):
            break
        page.wait_for_timeout(50)
    line = rect(page.locator("#turn-status .turn-line"))
    rings = [
        outline_rect(part)
        for i in range(marked.count())
        for part in (marked.nth(i), marked.nth(i).locator(".face"))
    ]
    rings = [ring for ring in rings if ring is not None]
    assert rings, "the dice to keep are not outlined"
    for ring in rings:
        assert not overlap(ring, line), f"the hint's outline {ring} crosses the status line {line}"
    page.context.close()


def test_a_written_box_is_named_with_its_points(browser: Browser, live_server_url: str, screen: dict):
    page = new_page(browser, screen)
    game_id = start_solo(page, live_server_url)
    rig_dice(game_id, [1, 1, 1, 2, 3])
    page.reload()
    ones = page.get_by_role("button", name="Ones, 3 points", exact=True)
    expect(ones).to_be_enabled()
    expect(page.get_by_role("button", name="Full house, 0 points", exact=True)).to_be_enabled()
    ones.click()
    confirm_button(page).click()
    expect(turn_field(page)).to_have_value("2")
    expect(page.get_by_role("button", name="Ones, written 3", exact=True)).to_be_disabled()
    expect(page.get_by_role("button", name="Twos", exact=True)).to_be_disabled()
    assert Box.ONES.name in Player.objects.get(game_id=game_id).boxes
    page.context.close()


# -- what is new on the board passes axe, light and dark ------------------------------------------------


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_the_question_and_a_box_written_for_the_player_pass_axe(
    browser: Browser, live_server_url: str, screen: dict, dark: bool, strategy
):
    page = new_page(browser, screen, dark=dark, bypass_csp=True)
    page.emulate_media(reduced_motion="reduce")  # the banner's fade-in would be measured half drawn
    game_id = start_solo(page, live_server_url)
    third_roll(page, game_id, [1, 2, 3, 4, 5], due_in=30)
    box_button(page, "PENTA").click()
    expect(page.locator("[data-zero-question]")).to_be_visible()
    found = {"the zero's question": scan(page)}
    Turn.objects.filter(game_id=game_id, number=1).update(auto_commit_at=timezone.now())
    off_the_browsers_loop(lambda: play.games_settle_overdue(game_ids=[game_id]))
    # The page's own tick, asked for now rather than when its countdown runs out.
    page.evaluate(
        "htmx.ajax('POST', location.pathname + 'tick/?turn=1', {source: document.getElementById('game'), "
        "swap: 'none', headers: {'X-Penta-Resync': '1'}})"
    )
    expect(page.locator("[data-written-note]")).to_be_visible()
    expect(page.locator("td[data-written-for]")).to_be_visible()
    found["a box written for the player"] = scan(page)
    serious = {
        where: [v for v in violations if v["impact"] in BLOCKING] for where, violations in found.items()
    }
    assert not any(serious.values()), serious
    page.context.close()
