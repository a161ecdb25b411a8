"""The browser tests' page helpers, one copy each: the screens and the patience, logging in and starting
games, the game page's controls (Roll, the dice, the boxes, Confirm) and the turns played with them,
what the page looks like (contrast, width, tumbling dice), positions set in the database, rooms
against friends made on the home page, the games waiting for a person's move (the header's count, the
home page's list), the installable app (manifest, service worker), notifications on a device ("Notify
me", the push service played by the test, what the worker shows), and the axe-core scan."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from django.db import connection
from playwright.sync_api import Browser, Locator, Page, expect

from dicegame.models import Game, Turn
from dicegame.play import rooms
from live.models import Connection
from tests.support.factories import PASSWORD, actor
from tests.support.games import current

# -- screens and patience ------------------------------------------------------------------------------

# Live pages wait on sockets, the clock and the computer's pace, and two cores are shared by a live
# server, browsers and the test: an expectation may take seconds, not Playwright's default 5.
WAIT_MS = 20_000
COUNTDOWN_WAIT_MS = 15_000  # the real 3-second auto-commit countdown, plus the tick's round trip

PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 860}
LAPTOP = {"width": 1100, "height": 900}
WIDE = {"width": 1280, "height": 900}
VIEWPORTS = {"desktop": LAPTOP, "phone": PHONE}
# The phones a game screen is made for (issue 40): everything of a turn in one screen on each.
PHONES = {
    "360x740": PHONE,
    "390x844": {"width": 390, "height": 844},
    "412x915": {"width": 412, "height": 915},
}
# The play screen's two shapes: dice beside the whole sheet, and the dock pinned under it on a phone.
PLAY_SCREENS = {"desktop": WIDE, "phone": PHONE}

GAME_URL = re.compile(r"/games/(\d+)/$")


# -- pages, people and new games -----------------------------------------------------------------------


def new_page(browser: Browser, viewport: dict, *, dark: bool = False, bypass_csp: bool = False) -> Page:
    context = browser.new_context(
        locale="en-GB", viewport=viewport, color_scheme="dark" if dark else "light", bypass_csp=bypass_csp
    )
    return context.new_page()


def log_in(page: Page, base: str, username: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    # The menu names the user once the login has gone through.
    expect(page.locator("nav").get_by_role("link", name=username)).to_be_visible()


def logged_in_page(
    browser: Browser, base: str, username: str, *, viewport: dict = LAPTOP, language: str | None = None
) -> Page:
    """A page of its own (a browser context: its own cookies) with `username` logged in; its pages in
    `language` from then on (the login itself is in English, as the helper reads it)."""
    page = new_page(browser, viewport)
    log_in(page, base, username)
    if language:
        page.context.add_cookies([{"name": "django_language", "value": language, "url": base}])
    return page


def open_menu(page: Page) -> None:
    """A game page's compact header keeps every link but the "your turn" badge in its menu: open it."""
    menu = page.locator("[data-header-menu]")
    if menu.count() and menu.get_attribute("open") is None:
        menu.locator("summary").click()
        expect(menu).to_have_attribute("open", "")


def game_id_of(page: Page) -> int:
    match = GAME_URL.search(page.url)
    assert match is not None, page.url
    return int(match.group(1))


def start_solo(page: Page, base: str) -> int:
    """A new solo game, its page ready for the first roll; returns the game's id."""
    page.goto(base + "/")
    page.get_by_role("button", name="Play solo", exact=True).click()
    expect(page).to_have_url(GAME_URL)
    expect(roll_button(page)).to_be_enabled()
    return game_id_of(page)


def start_against_computers(page: Page, base: str, *strengths: str) -> int:
    """A new game against the computer players of `strengths` (none given: the form's own choice),
    its page ready for the first roll; returns the game's id."""
    page.goto(base + "/")
    form = page.locator("form.computer-form").first
    selects = form.locator("select[name=strength]")
    for i, strength in enumerate(strengths):
        selects.nth(i).select_option(strength)
    form.get_by_role("button", name="Play against the computer").click()
    expect(page).to_have_url(GAME_URL)
    expect(roll_button(page)).to_be_enabled()
    return game_id_of(page)


# -- the game page, by role and contract ---------------------------------------------------------------

BOX_NAMES_EN = {
    "ONES": "Ones",
    "TWOS": "Twos",
    "THREES": "Threes",
    "FOURS": "Fours",
    "FIVES": "Fives",
    "SIXES": "Sixes",
    "THREE_OF_A_KIND": "Three of a kind",
    "FOUR_OF_A_KIND": "Four of a kind",
    "FULL_HOUSE": "Full house",
    "SMALL_STRAIGHT": "Small straight",
    "LARGE_STRAIGHT": "Large straight",
    "CHANCE": "Chance",
    "PENTA": "Penta",
}


def roll_button(page: Page) -> Locator:
    return page.get_by_role("button", name=re.compile(r"^Roll"))


def confirm_button(page: Page) -> Locator:
    return page.get_by_role("button", name="Confirm turn", exact=True)


def die(page: Page, n: int) -> Locator:
    return page.locator(f'#dice-tray [data-die="{n}"]')


def box_name(label: str) -> re.Pattern:
    """A box button's accessible name: the box (with its short name on a sheet of three or four seats:
    "Ones (1s)"), then its points for the viewer ("Ones, 3 points", "Ones, written 3"), or the box alone."""
    return re.compile(rf"^{re.escape(label)}( \([^)]+\))?(, .*)?$")


def box_button(page: Page, box: str) -> Locator:
    return page.get_by_role("button", name=box_name(BOX_NAMES_EN[box]))


def box_cell(page: Page, box: str) -> Locator:
    """The player's cell of the box's row (a solo sheet has one column)."""
    return page.locator(f'#scoresheet tr.box-row:has(button[data-box="{box}"]) td').first


def rolls_field(page: Page) -> Locator:
    return page.locator('#game-form input[name="roll"]')


def turn_field(page: Page) -> Locator:
    return page.locator('#game-form input[name="turn"]')


def dice_values(page: Page) -> list[str]:
    return [die(page, n).get_attribute("data-value") or "" for n in range(1, 6)]


def wait_htmx_idle(page: Page) -> None:
    """No request of htmx in flight: the page takes one action at a time and drops a click meanwhile.
    (Not wait_for_function: the page's CSP forbids evaluating strings.)"""
    expect(page.locator(".htmx-request")).to_have_count(0)


def settled(page: Page) -> None:
    """No action on its way and no roll cooling down."""
    expect(page.locator("#game[data-busy], #game[data-roll-cooling]")).to_have_count(0)


def release_focus(page: Page) -> None:
    """Like clicking on the page's background: the shortcuts work only when no control has the focus."""
    page.evaluate("document.activeElement && document.activeElement.blur && document.activeElement.blur()")


# -- a person's actions --------------------------------------------------------------------------------


def roll(page: Page, *, keyboard: bool = False) -> list[str]:
    """Roll once (click or Space) and wait for the board that shows it; returns the dice."""
    before = int(rolls_field(page).input_value())
    # A second press of Roll within 350 ms of the first is taken for a double click and dropped: a
    # person looks at the dice first; the test waits as long.
    expect(page.locator("#game[data-roll-cooling]")).to_have_count(0)
    if keyboard:
        release_focus(page)
        page.keyboard.press("Space")
    else:
        roll_button(page).click()
    expect(rolls_field(page)).to_have_value(str(before + 1))
    for n in range(1, 6):
        expect(die(page, n)).to_have_attribute("data-value", re.compile(r"^[1-6]$"))
    wait_htmx_idle(page)
    return dice_values(page)


def toggle_hold(page: Page, n: int, *, keyboard: bool = False) -> None:
    pressed = die(page, n).get_attribute("aria-pressed")
    flipped = "false" if pressed == "true" else "true"
    if keyboard:
        release_focus(page)
        page.keyboard.press(str(n))
    else:
        die(page, n).click()
    expect(die(page, n)).to_have_attribute("aria-pressed", flipped)
    wait_htmx_idle(page)


def best_open_box(page: Page) -> tuple[str, int]:
    """The enabled box whose option scores most (the first such box on the sheet), with its points."""
    options = page.evaluate(
        """() => Array.from(document.querySelectorAll('#scoresheet button[data-box]:not([disabled])'))
            .map(b => {
              const cell = b.closest('tr').querySelector('.option-points');
              return [b.dataset.box, cell ? Number(cell.textContent.trim()) : 0];
            })"""
    )
    assert options, "no enabled box although the dice are rolled"
    box, points = max(options, key=lambda item: item[1])  # max keeps the first of equal options
    return box, points


def choose_box(page: Page) -> tuple[str, int]:
    box, points = best_open_box(page)
    button = box_button(page, box)
    expect(button).to_be_enabled()
    button.click()
    expect(box_button(page, box)).to_have_attribute("aria-pressed", "true")
    expect(confirm_button(page)).to_be_enabled()
    wait_htmx_idle(page)
    return box, points


def confirm(page: Page, turn: int, *, keyboard: bool = False) -> None:
    if keyboard:
        release_focus(page)
        page.keyboard.press("Enter")
    else:
        confirm_button(page).click()
    if turn < 13:
        expect(turn_field(page)).to_have_value(str(turn + 1))
        expect(rolls_field(page)).to_have_value("0")
    else:
        expect(page.get_by_role("heading", name="Game over")).to_be_visible()
    wait_htmx_idle(page)


def filled_scores(page: Page) -> dict[str, int]:
    scores = page.evaluate(
        """() => Object.fromEntries(Array.from(document.querySelectorAll('#scoresheet tr.box-row'))
            .filter(row => row.querySelector('td[data-score]'))
            .map(row => [row.querySelector('button[data-box]').dataset.box,
                         Number(row.querySelector('td[data-score]').dataset.score)]))"""
    )
    return {box: int(points) for box, points in scores.items()}


# -- whole turns ---------------------------------------------------------------------------------------


def play_turn_with_holds(page: Page, turn: int, *, keyboard: bool) -> None:
    """Roll, hold two dice, roll the others again; holds must stick and held faces must not change."""
    first = roll(page, keyboard=keyboard)
    held = (1, 3) if turn % 2 else (2, 5)
    for n in held:
        toggle_hold(page, n, keyboard=keyboard)
    # Tapping a die twice releases it again.
    free = next(n for n in range(1, 6) if n not in held)
    toggle_hold(page, free, keyboard=keyboard)
    toggle_hold(page, free, keyboard=keyboard)
    second = roll(page, keyboard=keyboard)
    for n in range(1, 6):
        expected = "true" if n in held else "false"
        expect(die(page, n)).to_have_attribute("aria-pressed", expected)
    for n in held:
        assert second[n - 1] == first[n - 1], f"held die {n} changed on the reroll: {first} -> {second}"


def play_auto_committed_turn(page: Page, turn: int) -> None:
    filled_before = filled_scores(page)
    for _ in range(3):
        roll(page)
    expect(roll_button(page)).to_be_disabled()
    countdown = page.locator("[data-countdown-ms]")
    expect(countdown).to_be_visible()
    expect(countdown).to_contain_text(re.compile(r"\d+\s*s"))
    # Choose nothing: the server writes the roll when the countdown has run out, and the round advances.
    expect(page.locator(".turn-line")).to_contain_text(f"Round {turn + 1} of 13", timeout=COUNTDOWN_WAIT_MS)
    expect(turn_field(page)).to_have_value(str(turn + 1), timeout=COUNTDOWN_WAIT_MS)
    expect(page.locator("[data-countdown-ms]")).to_have_count(0)
    wait_htmx_idle(page)
    filled_after = filled_scores(page)
    assert set(filled_after) - set(filled_before), "the auto-commit filled no box"
    assert len(filled_after) == len(filled_before) + 1
    for box, points in filled_before.items():
        assert filled_after[box] == points


def play_person_turn(
    page: Page, name: str, round_number: int, *, reload_mid_turn: bool = False, first: bool = False
) -> None:
    """One person's turn of a local game: the "Pass to" screen (but before the game's `first` turn, when
    the device is in their hands already: Roll), one roll, the first open box."""
    expect(page.locator(".turn-line")).to_contain_text(f"Round {round_number} of 13")
    if first:
        expect(page.locator("[data-pass-to]")).to_have_count(0)
        expect(page.locator(".turn-line")).to_contain_text(name)
        wait_htmx_idle(page)
        roll_button(page).click()
    else:
        # Between turns: whom to pass the device to, with one big target that starts the turn.
        expect(page.locator(f'[data-pass-to="{name}"]')).to_contain_text(f"Pass to {name}")
        tap = page.get_by_role("button", name=f"{name}, tap to start your turn")
        box = tap.bounding_box()
        assert box is not None and box["height"] >= 44 and box["width"] >= 200, box
        wait_htmx_idle(page)
        tap.click()
    expect(rolls_field(page)).to_have_value("1")
    expect(page.locator("[data-pass-to]")).to_have_count(0)
    expect(page.locator('#dice-tray [data-die="1"]')).to_have_attribute("data-value", re.compile(r"^[1-6]$"))
    expect(page.locator("th.current")).to_contain_text(name)
    if reload_mid_turn:
        dice = dice_values(page)
        page.reload()
        # The same game, the same turn, the same dice: everything lives on the server.
        expect(rolls_field(page)).to_have_value("1")
        expect(page.locator("th.current")).to_contain_text(name)
        assert dice_values(page) == dice
    wait_htmx_idle(page)
    box = page.locator("button.box-button:not([disabled]):not([data-asks-zero])").first
    name_of_box = box.get_attribute("data-box")
    box.click()
    expect(page.locator(f'button.box-button[data-box="{name_of_box}"]')).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(confirm_button(page)).to_be_enabled()
    wait_htmx_idle(page)
    confirm_button(page).click()


def whose_turn(game_id: int) -> str | None:
    """The username whose turn it is (from the server), or None when the game is over."""
    turn = Turn.objects.filter(game_id=game_id, completed_at__isnull=True).select_related("player").first()
    return turn.player.name if turn else None


def wait_until_my_turn(page: Page) -> None:
    ready = page.locator("[data-action=roll]:not([disabled]), button.box-button:not([disabled])")
    expect(ready.first).to_be_visible(timeout=WAIT_MS * 2)


def play_live_turn(page: Page, other: Page | None, *, show_hold: bool = False) -> None:
    """One turn of a live game between people: a roll, the first open box, Confirm; with `show_hold`,
    a die held first, and seen held on the `other` player's page."""
    first_die = page.locator('[data-die="1"]')
    if roll_button(page).is_enabled():
        roll_button(page).click()
        try:
            expect(first_die).to_have_attribute("data-value", re.compile(r"^[1-6]$"), timeout=5_000)
        except AssertionError:
            # As a person would: the board changed under the tap (the other player's screen came
            # back), so tap Roll again; the server refuses a second roll of the same dice.
            if roll_button(page).is_enabled():
                roll_button(page).click()
            expect(first_die).to_have_attribute("data-value", re.compile(r"^[1-6]$"))
    if show_hold and other is not None:
        page.locator('[data-die="1"]').click()
        expect(page.locator('[data-die="1"]')).to_have_attribute("aria-pressed", "true")
        # The friend's page shows the hold live, without reloading.
        expect(other.locator('[data-die="1"]')).to_have_attribute("aria-pressed", "true")
    box = page.locator("button.box-button:not([disabled]):not([data-asks-zero])").first
    box.click()
    expect(page.locator('button.box-button[aria-pressed="true"]')).to_have_count(1)
    confirm_button(page).click()
    expect(
        confirm_button(page).and_(page.locator("[disabled]")).or_(page.locator("#game-result"))
    ).to_be_visible()


# -- the server's side ---------------------------------------------------------------------------------


def act_elsewhere(page: Page, base: str, game_id: int, action: str) -> int:
    """The same player acts from elsewhere (another device, as the server sees it): a plain POST with
    the player's session, through the live server, so that the page gets the change as a push."""
    token = page.evaluate("JSON.parse(document.body.getAttribute('hx-headers'))['X-CSRFToken']")
    turn = current(game_id)
    response = page.request.post(
        f"{base}/games/{game_id}/{action}/",
        form={"turn": str(turn.number), "roll": str(turn.rolls_used)},
        headers={"X-CSRFToken": token, "HX-Request": "true"},
    )
    return response.status


def converged(page: Page, game_id: int) -> None:
    """Wait until the page is idle and shows the server's version of the game (polling both sides)."""
    for _ in range(100):
        settled(page)
        version = Game.objects.get(pk=game_id).version
        if page.locator("#game-status").get_attribute("data-version") == str(version):
            return
        page.wait_for_timeout(200)
    raise AssertionError(f"the page never caught up with version {version}")


def rig_dice(game_id: int, dice: list[int], rolls: int = 1) -> None:
    """The turn in play has `dice` after `rolls` rolls (as if rolled): the page shows them once reloaded."""
    Turn.objects.filter(game_id=game_id, completed_at__isnull=True).update(
        dice=dice, held=[False] * 5, rolls=[{"dice": dice, "held": [False] * 5}] * rolls
    )


# -- rooms against friends, made on the home page ------------------------------------------------------


def create_room(page: Page, base: str, *, seats: int = 2, pace: str | None = None) -> int:
    """A room against friends from the home page's form: `seats`, and `pace` the Pace option as the
    form shows it ("Correspondence: a day a move"; none: the form's own, live). Returns the game's id
    once its lobby shows."""
    page.goto(base + "/")
    form = page.locator("form.friends-form")
    form.get_by_label("Seats").select_option(str(seats))
    if pace is not None:
        form.get_by_label("Pace").select_option(label=pace)
    form.get_by_role("button", name="Create a game").click()
    expect(page.get_by_role("heading", name="Waiting for players")).to_be_visible()
    return game_id_of(page)


# -- games waiting for a move: correspondence games, the header's count, the home page's list ----------

DAY_A_MOVE = 24 * 3600


def off_the_browsers_loop[T](action: Callable[[], T]) -> T:
    """Run a service of the application's in a thread of its own, and return what it returns. Once a
    page is open, this thread runs Playwright's event loop, and a service that pushes (through
    async_to_sync) would refuse to run in it."""

    def run() -> T:
        try:
            return action()
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


def correspondence_game(host, *others, move_seconds: int = DAY_A_MOVE) -> Game:
    """A started correspondence game against friends, made with the services: `host` in the first seat
    (to move first), `others` seated through the invitation link, in their order. (Made in this
    process: its pushes reach no page of the live server's.)"""

    def make() -> Game:
        game = rooms.room_create(
            actor=actor(host), seats=1 + len(others), turn_seconds=0, move_seconds=move_seconds
        )
        for other in others:
            rooms.room_join_by_link(token=game.invite_token, actor=actor(other))
        rooms.room_start(game_id=game.pk, actor=actor(host))
        game.refresh_from_db()
        return game

    return off_the_browsers_loop(make)


def notice_sockets(user) -> set[str]:
    """The person's notice sockets the server holds now (a Connection row each: their open pages)."""
    return set(
        Connection.objects.filter(user=user, kind=Connection.Kind.NOTICES).values_list("pk", flat=True)
    )


def wait_for_notice_socket(page: Page, user, known: set[str]) -> None:
    """Wait until the server holds a notice socket of the person's that is not among `known` (taken
    before the page was opened): the page now gets what the server pushes to that person."""
    for _ in range(WAIT_MS // 50):
        if notice_sockets(user) - known:
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"no new notice socket of {user} reached the server")


def open_with_notices(page: Page, url: str, user) -> None:
    """Go to `url` (a page of the logged-in `user`) and wait until its notice socket is on the server."""
    known = notice_sockets(user)
    page.goto(url)
    wait_for_notice_socket(page, user, known)


def waiting_count(page: Page) -> Locator:
    """The header's Inbox link; its data-waiting (and its badge) counts what waits for the person: games
    for their move, challenges and invitations for their answer."""
    return page.locator("#waiting-count")


def expect_waiting_count(page: Page, count: int) -> None:
    """The header says `count` games wait for the person's move (in the number and in the badge)."""
    expect(waiting_count(page)).to_have_attribute("data-waiting", str(count))
    expect(waiting_count(page).locator(".badge")).to_have_text(str(count))


def waiting_list(page: Page) -> Locator:
    """The home page's list of the games waiting for the person's move."""
    return page.locator("#waiting[data-waiting-list]")


def waiting_entry(page: Page, game_id: int) -> Locator:
    """The game's line in the home page's list of games waiting."""
    return waiting_list(page).locator(f'li[data-game="{game_id}"]')


def next_game_link(page: Page) -> Locator:
    """On a game page waiting for someone else: the link to the viewer's next game waiting for them
    (not #game-status's data-next-game, which is a rematch's address)."""
    return page.locator("#next-game a[data-next-game]")


def play_my_turn(page: Page, turn: int) -> tuple[str, int]:
    """One turn through the page's own buttons: Roll once, the best box, Confirm; returns the box and
    its points. `turn` is the game's turn number (the form's), counted over every seat."""
    expect(roll_button(page)).to_be_enabled()
    wait_htmx_idle(page)
    roll(page)
    chosen = choose_box(page)
    confirm(page, turn)
    return chosen


# -- the installable app: manifest and service worker --------------------------------------------------

# The active worker's script once the page's registration has one (null if none within `ms`).
SERVICE_WORKER_READY_JS = """(ms) => Promise.race([
  navigator.serviceWorker.ready.then((registration) => registration.active.scriptURL),
  new Promise((resolve) => setTimeout(() => resolve(null), ms)),
])"""


def manifest_link(page: Page) -> Locator:
    return page.locator('head link[rel="manifest"]')


def service_worker_ready(page: Page) -> str | None:
    """Wait until navigator.serviceWorker.ready resolves; the active worker's script URL (None if the
    page registered none in time)."""
    return page.evaluate(SERVICE_WORKER_READY_JS, WAIT_MS)


def service_worker_scope(page: Page) -> str:
    return page.evaluate("navigator.serviceWorker.ready.then((registration) => registration.scope)")


def service_worker_controller(page: Page) -> str | None:
    """The script URL of the worker that controls the page, or None if none does."""
    return page.evaluate(
        "navigator.serviceWorker.controller ? navigator.serviceWorker.controller.scriptURL : null"
    )


# -- notifications on a device: "Notify me", the push service, what the service worker shows -----------


def notify_me_button(page: Page) -> Locator:
    return page.get_by_role("button", name="Notify me on this device")


def notify_status(page: Page) -> Locator:
    """The status line beside "Notify me": what came of pressing it."""
    return page.locator("#notify-status")


# Headless Chromium has no push service: PushManager.subscribe() fails ("Registration failed -
# permission denied") whatever the permission. Playing the browser's part, this makes subscribe()
# answer the subscription given (as PushSubscription.toJSON() gives it); the page's script is untouched.
PLAY_THE_PUSH_SERVICE_JS = """(subscription) => {
  PushManager.prototype.subscribe = function (options) {
    // Kept in the tab's session storage: the page reloads itself once the device is added.
    sessionStorage.setItem("pentaSubscribeOptions", JSON.stringify({
      userVisibleOnly: options.userVisibleOnly,
      applicationServerKey: Array.from(new Uint8Array(options.applicationServerKey)),
    }));
    return Promise.resolve({ endpoint: subscription.endpoint, toJSON: () => subscription });
  };
}"""


def play_the_push_service(page: Page, subscription: dict) -> None:
    """From the page's next load on, the browser's push service subscribes it as `subscription`."""
    page.context.add_init_script(script=f"({PLAY_THE_PUSH_SERVICE_JS})({json.dumps(subscription)})")


def subscribe_options(page: Page) -> dict:
    """What the page asked the push service for: userVisibleOnly, applicationServerKey (its bytes)."""
    return page.evaluate("JSON.parse(sessionStorage.getItem('pentaSubscribeOptions'))")


def deliver_push(page: Page, base: str, data: str) -> None:
    """A push message reaches the site's service worker, as from the browser's push service (DevTools'
    ServiceWorker.deliverPushMessage): its push handler runs."""
    cdp = page.context.new_cdp_session(page)
    registrations: list[dict] = []
    cdp.on("ServiceWorker.workerRegistrationUpdated", lambda e: registrations.extend(e["registrations"]))
    cdp.send("ServiceWorker.enable")
    for _ in range(WAIT_MS // 50):
        live = [r for r in registrations if not r["isDeleted"] and r["scopeURL"] == f"{base}/"]
        if live:
            break
        page.wait_for_timeout(50)
    else:
        raise AssertionError(f"no service worker registration for {base}/: {registrations}")
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {"origin": base, "registrationId": live[0]["registrationId"], "data": data},
    )
    cdp.detach()


def shown_notifications(page: Page) -> list[dict]:
    """The notifications the site's service worker shows now (title, body, tag, data)."""
    return page.evaluate(
        """() => navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((shown) =>
            shown.map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data })))"""
    )


# -- the look ------------------------------------------------------------------------------------------

# (element, colour to draw or None for its text colour, measure against its parent's background)
CONTRAST_JS = """
([el, fgProp, onParent]) => {
  const parse = (c) => {
    const m = c.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, base) => {
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + base[i] * (1 - a)).concat([1]);
  };
  const mix = (a, b, o) => [0, 1, 2].map((i) => a[i] * o + b[i] * (1 - o)).concat([1]);
  const lum = (c) => {
    const ch = c.slice(0, 3).map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2];
  };
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const target = onParent ? el.parentElement : el;
  const chain = [];
  for (let n = target; n; n = n.parentElement) chain.unshift(n);
  // Each node: its background choices (a gradient's stops, or its colour) and its opacity.
  const layers = chain.map((n) => {
    const s = getComputedStyle(n);
    let bgs = [parse(s.backgroundColor) || [0, 0, 0, 0]];
    const stops = (s.backgroundImage.match(/rgba?\\([^)]+\\)/g) || []).map(parse);
    if (stops.length) bgs = stops;
    return { bgs, opacity: Number(s.opacity) };
  });
  const ownOpacity = onParent ? Number(getComputedStyle(el).opacity) : 1;
  const fgRaw = parse(fgProp ? getComputedStyle(el)[fgProp] : getComputedStyle(el).color);
  const canvas = matchMedia("(prefers-color-scheme: dark)").matches ? [0, 0, 0, 1] : [255, 255, 255, 1];
  let worst = Infinity;
  const combos = (i, picks) => {
    if (i === layers.length) {
      const render = (k, base, withText) => {
        const own = over(picks[k], base);
        let inner;
        if (k === layers.length - 1) inner = withText ? mix(over(fgRaw, own), own, ownOpacity) : own;
        else inner = render(k + 1, own, withText);
        return mix(inner, base, layers[k].opacity);
      };
      worst = Math.min(worst, ratio(render(0, canvas, true), render(0, canvas, false)));
      return;
    }
    for (const bg of layers[i].bgs) combos(i + 1, picks.concat([bg]));
  };
  combos(0, []);
  return worst;
}
"""


def contrast(page: Page, selector: str, *, fg: str | None = None, on_parent: bool = False) -> list[float]:
    """The effective contrast of every element matching `selector` (at least one must)."""
    handles = page.locator(selector).element_handles()
    assert handles, f"nothing matches {selector}"
    return [page.evaluate(CONTRAST_JS, [h, fg, on_parent]) for h in handles]


def page_widths(page: Page) -> tuple[int, int]:
    """The page's scroll width and the window's inner width: the page scrolls sideways when the first is
    the larger."""
    return page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")


def assert_fits_the_phone(page: Page) -> None:
    width, _ = page_widths(page)
    assert width <= PHONE["width"], f"the page is {width}px wide on a {PHONE['width']}px screen"


def on_screen(box: dict, viewport: dict) -> bool:
    return (
        box["y"] >= 0
        and box["y"] + box["height"] <= viewport["height"]
        and box["x"] >= 0
        and (box["x"] + box["width"] <= viewport["width"])
    )


def rect(locator: Locator) -> dict:
    """Where the element is drawn, in the viewport's pixels (it must be drawn)."""
    box = locator.bounding_box()
    assert box is not None, f"not drawn: {locator}"
    return box


def overlap(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def uncovered(locator: Locator) -> bool:
    """The point at the element's centre is the element itself (nothing pinned or floating over it)."""
    return locator.evaluate(
        "e => { const r = e.getBoundingClientRect();"
        " return e.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2)); }"
    )


def outline_rect(locator: Locator) -> dict | None:
    """The box the element's outline is drawn around (its border box grown by offset and width), or None
    when it has no outline."""
    return locator.evaluate(
        "e => { const r = e.getBoundingClientRect(), s = getComputedStyle(e);"
        " if (s.outlineStyle === 'none') return null;"
        " const grow = parseFloat(s.outlineOffset) + parseFloat(s.outlineWidth);"
        " return {x: r.x - grow, y: r.y - grow, width: r.width + 2 * grow, height: r.height + 2 * grow}; }"
    )


# The words of an element that a line break cuts in two ("Ann" / "a").
SPLIT_WORDS_JS = """e => {
  const split = [];
  const walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const m of node.data.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const lines = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
      if (lines.size > 1) split.push(m[0]);
    }
  }
  return split;
}"""


def split_words(locator: Locator) -> list[str]:
    return locator.evaluate(SPLIT_WORDS_JS)


TRACK_TUMBLES = """() => {
  window.tumbles = [];
  document.addEventListener("animationstart", (e) => {
    const die = e.target.closest("#dice-tray .die");
    if (die) window.tumbles.push(die.dataset.die);
  });
}"""
NEXT_FRAMES = (
    "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0))))"
)


def wait_for_tumbles(page: Page, count: int, timeout_s: float = 10) -> None:
    """Poll from the test, not with wait_for_function: that evaluates a string in the page, which the
    page's CSP (no unsafe-eval) refuses."""
    deadline = time.monotonic() + timeout_s
    while page.evaluate("window.tumbles.length") < count:
        assert time.monotonic() < deadline, (
            f"fewer than {count} dice tumbled: {page.evaluate('window.tumbles')}"
        )
        page.wait_for_timeout(50)


# -- in Dutch, and over the socket ---------------------------------------------------------------------

DUTCH_BOXES = {
    "ONES": "Enen",
    "THREE_OF_A_KIND": "Driekind",
    "FOUR_OF_A_KIND": "Carré",
    "SMALL_STRAIGHT": "Kleine straat",
}
# Marks the page with data-socket-message-<n> once its live socket has delivered n messages.
COUNT_SOCKET_MESSAGES = """
    window.__pentaSocketMessages = 0;
    document.addEventListener('htmx:wsAfterMessage', () => {
        window.__pentaSocketMessages += 1;
        document.documentElement.setAttribute('data-socket-message-' + window.__pentaSocketMessages, '');
    });
"""


def socket_messages(page: Page) -> int:
    return page.evaluate("window.__pentaSocketMessages")


def wait_for_socket_messages(page: Page, at_least: int) -> None:
    """If the game page has a live socket, wait until it has delivered `at_least` boards (each one
    re-renders the board, so the labels must be checked after it, not before)."""
    if page.locator("#game[data-ws-connect]").count():
        expect(page.locator(f"html[data-socket-message-{at_least}]")).to_be_attached()
    wait_htmx_idle(page)


def assert_dutch_boxes(page: Page) -> None:
    for box, dutch in DUTCH_BOXES.items():
        button = page.get_by_role("button", name=box_name(dutch))
        expect(button).to_have_count(1)
        expect(button).to_have_attribute("data-box", box)
    for box in DUTCH_BOXES:
        expect(page.get_by_role("button", name=box_name(BOX_NAMES_EN[box]))).to_have_count(0)


# -- axe-core ------------------------------------------------------------------------------------------

AXE = next((Path(__file__).parent / "vendor").glob("axe-core-*/axe.min.js"))
BLOCKING = {"serious", "critical"}


def scan(page: Page) -> list[dict]:
    """axe's violations on the page as it stands, each with its impact and the elements it names. axe
    is injected into the page: its context must bypass the CSP."""
    page.wait_for_load_state()
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    result = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations.map((v) => ({"
        " id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.map((n) => n.target.join(' ') + ' :: ' + (n.failureSummary || '')).slice(0, 5)}))"
    )
    return result


# -- issue 22's polish: the end card, My games, times, answered puzzles ---------------------------------

SCREEN_1280 = {"width": 1280, "height": 900}
SCREENS = {"1280x900": SCREEN_1280, "360x740": PHONE}


def within_the_width(page: Page, locator: Locator) -> bool:
    """The element is shown and lies within the page's width (not cut off at a side)."""
    box = locator.bounding_box()
    width = page.viewport_size["width"]
    return box is not None and box["width"] > 0 and box["x"] >= 0 and box["x"] + box["width"] <= width


def in_the_first_screen(page: Page, locator: Locator) -> bool:
    """The element is seen without scrolling: within the viewport with the page at its top."""
    page.evaluate("window.scrollTo(0, 0)")
    box = locator.bounding_box()
    return box is not None and on_screen(box, page.viewport_size)


def history_row(page: Page, game_id: int) -> Locator:
    return page.locator(f'#main tr[data-game="{game_id}"]')


def shown_time(page: Page, game_id: int) -> Locator:
    """When a game of My games started, as the page shows it."""
    return history_row(page, game_id).locator("time")


# -- tournaments ---------------------------------------------------------------------------------------

TOURNAMENT_URL = re.compile(r"/tournaments/(\d+)/(\?.*)?$")


def make_tournament(
    page: Page, base: str, *, name: str, rounds: int, window: str, max_entrants: int, public: bool = False
) -> int:
    """A tournament from the list page's form (`window` as the form words it: "an hour"); returns its
    id once its page shows."""
    page.goto(base + "/tournaments/")
    form = page.locator("form[data-create]")
    form.get_by_label("Name", exact=True).fill(name)
    form.get_by_label(re.compile(r"^Rounds")).select_option(str(rounds))
    form.get_by_label(re.compile(r"^Each round lasts")).select_option(label=window)
    form.get_by_label(re.compile(r"^Entrants at most")).fill(str(max_entrants))
    form.get_by_role("radio", name=re.compile(r"Public" if public else r"By invitation")).check()
    form.get_by_role("button", name="Make the tournament").click()
    expect(page).to_have_url(TOURNAMENT_URL)
    expect(page.get_by_role("heading", level=1)).to_contain_text(name)
    return int(TOURNAMENT_URL.search(page.url).group(1))


def play_tournament_round(page: Page, number: int) -> int:
    """From the tournament's page: Play round `number`, its 13 turns through the game page's buttons,
    then back to the tournament by the end card's link; returns the game's id."""
    page.get_by_role("button", name=f"Play round {number}").click()
    expect(page).to_have_url(GAME_URL)
    game_id = game_id_of(page)
    expect(page.locator('[data-action="hints"]')).to_have_count(0)  # no hints in a tournament
    for turn in range(1, 14):
        play_my_turn(page, turn)
    page.locator("[data-tournament-link] a").click()
    expect(page).to_have_url(TOURNAMENT_URL)
    return game_id


# -- challenges, the inbox and a game with someone new (issue 41) --------------------------------------


def inbox(page: Page) -> Locator:
    """The home page's inbox: what waits for the person, then their own offers."""
    return page.locator("#inbox")


def challenge_entry(page: Page, challenge_id: int) -> Locator:
    """The challenge's line in the inbox (waiting for the person's answer, or their own)."""
    return inbox(page).locator(f'li[data-challenge="{challenge_id}"]')


def send_challenge(page: Page, base: str, username: str, *, pace: str | None = None) -> None:
    """From the friends page, the friend's Play and the sheet's Challenge (`pace` as the sheet words
    it: "Correspondence: a day a move"; none: the sheet's own)."""
    page.goto(f"{base}/accounts/friends/")
    page.locator(f'[data-play="{username}"]').click()
    expect(page.get_by_role("heading", name=f"Play {username}")).to_be_visible()
    if pace is not None:
        page.get_by_label("Pace").select_option(label=pace)
    page.get_by_role("button", name=f"Challenge {username}").click()


def become_friends(asking: Page, answering: Page, base: str, asked: str, asker: str) -> None:
    """Through the friends pages: `asking` finds `asked` and adds them, `answering` accepts."""
    asking.goto(f"{base}/accounts/friends/")
    asking.get_by_label("Find a player").fill(asked)
    asking.get_by_role("button", name="Search").click()
    asking.get_by_role("button", name=f"Add friend {asked}").click()
    expect(asking.locator("#messages")).to_contain_text(f"Friend request sent to {asked}.")
    answering.goto(f"{base}/accounts/friends/")
    answering.get_by_role("button", name=f"Accept {asker}").click()
    expect(answering.locator(f'[data-play="{asker}"]')).to_be_visible()
