"""The look, measured in Chromium: readable disabled controls and dice, no sideways scrolling at 360 px,
the dice and the Roll button within reach on a phone while the sheet scrolls, a roomy sheet on a desktop.

Contrast is computed from what the browser draws: the colours and the opacity of the element and of every
ancestor (an opacity group blends with what lies beneath it), against the background the element stands
on (every colour stop of a gradient is tried; the worst counts). axe-core skips disabled controls in its
colour-contrast rule, hence these tests."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Browser, Page, expect

from accounts.models import Friendship
from tests.support.factories import PASSWORD, UserFactory
from tests.support.games import make_game

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 860}

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
    expect(page.get_by_role("link", name=username)).to_be_visible()


def roll(page: Page) -> None:
    """Roll once. penta.js takes two presses of Roll within 0.4 s for a double click and drops the second,
    so a press that changes nothing is made again, as a person would (the form names the roll it
    follows, so the server never rolls twice for one)."""
    counter = page.locator("#game-form input[name=roll]")
    before = counter.get_attribute("value")
    for _attempt in range(10):
        page.locator("[data-action=roll]").click()
        try:
            expect(counter).not_to_have_value(before, timeout=1_500)
            break
        except AssertionError:
            continue
    expect(counter).not_to_have_value(before)
    expect(page.locator('[data-die="1"]')).to_have_attribute("data-value", re.compile(r"^[1-6]$"))


def start_solo(page: Page, base: str) -> None:
    page.goto(base + "/")
    page.get_by_role("button", name="Play solo").click()
    expect(page).to_have_url(re.compile(r"/games/\d+/$"))


def start_against_computers(page: Page, base: str, opponents: int = 3) -> None:
    page.goto(base + "/")
    selects = page.locator(".computer-form select[name=strength]")
    for i in range(opponents):
        selects.nth(i).select_option("easy")
    page.locator(".computer-form").first.get_by_role("button", name="Play against the computer").click()
    expect(page).to_have_url(re.compile(r"/games/\d+/$"))
    expect(page.locator("[data-action=roll]:not([disabled])")).to_be_visible()


def no_sideways_scroll(page: Page) -> tuple[int, int]:
    return page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")


# -- disabled is not faded -----------------------------------------------------------------------------


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_disabled_dice_held_marks_and_buttons_stay_readable(
    browser: Browser, live_server_url: str, dark: bool
):
    page = new_page(browser, DESKTOP, dark=dark)
    start_solo(page, live_server_url)
    # Before the first roll: Confirm and every box are disabled, and must still read.
    expect(page.locator("[data-action=confirm]")).to_be_disabled()
    found = {"disabled Confirm": contrast(page, "[data-action=confirm]")}
    found["disabled box names"] = contrast(page, "button.box-button:disabled .box-full")
    roll(page)
    page.locator('[data-die="2"]').click()
    expect(page.locator('[data-die="2"]')).to_have_attribute("aria-pressed", "true")
    roll(page)
    roll(page)
    # The third roll: the dice can no longer be held, yet the player must read them to choose a box.
    page.locator("button.box-button:not([disabled]):not([data-asks-zero])").first.click()
    expect(page.locator('button.box-button[aria-pressed="true"]')).to_have_count(1)
    expect(page.locator("[data-action=roll]")).to_be_disabled()
    expect(page.locator('[data-die="2"]')).to_be_disabled()
    expect(page.locator('[data-die="2"]')).to_have_attribute("aria-pressed", "true")
    found["disabled Roll"] = contrast(page, "[data-action=roll]")
    found["HELD on a disabled die"] = contrast(page, '[data-die="2"] .held-label')
    found["pips of disabled dice"] = contrast(
        page, "#dice-tray .die:disabled .pip.on", fg="backgroundColor", on_parent=True
    )
    found["faces of disabled dice on the felt"] = contrast(
        page, "#dice-tray .die:disabled .face", fg="backgroundColor", on_parent=True
    )
    print({k: round(min(v), 2) for k, v in found.items()})
    for what, ratios in found.items():
        need = 3.0 if what.startswith(("pips", "faces")) else 4.5
        assert min(ratios) >= need, f"{what}: contrast {min(ratios):.2f} < {need}"
    # Disabled means not clickable: a pointer that says so, not a faded face.
    assert page.evaluate("getComputedStyle(document.querySelector('[data-die=\"2\"]')).opacity") == "1"
    assert page.evaluate("getComputedStyle(document.querySelector('[data-die=\"2\"]')).cursor") != "pointer"
    page.context.close()


def test_dice_of_an_opponent_and_a_spectator_stay_readable(browser: Browser, live_server_url: str):
    """Another player's turn: the dice are disabled for everyone else, and as readable as one's own."""
    hana, femke = UserFactory(username="hana-look"), UserFactory(username="femke-look")
    Friendship.objects.create(
        user_low=min(hana, femke, key=lambda u: u.pk), user_high=max(hana, femke, key=lambda u: u.pk)
    )
    host = new_page(browser, DESKTOP)
    log_in(host, live_server_url, hana.username)
    host.goto(live_server_url + "/")
    host.locator(".friends-form").get_by_role("button", name="Create a game").click()
    expect(host.locator("#lobby")).to_be_visible()
    join = host.locator("[data-join-link]").get_attribute("href")
    guest = new_page(browser, PHONE, dark=True)
    log_in(guest, live_server_url, femke.username)
    guest.goto(live_server_url + join)
    guest.get_by_role("button", name="Take a seat").click()
    expect(host.locator("#lobby li[data-seat]")).to_have_count(2)
    host.locator("#lobby").get_by_role("button", name="Start the game").click()
    expect(host.locator("#dice-tray")).to_be_visible()
    expect(guest.locator("#dice-tray")).to_be_visible()
    mover, watcher = (host, guest) if host.locator("[data-action=roll]").is_enabled() else (guest, host)
    roll(mover)
    mover.locator('[data-die="4"]').click()
    expect(watcher.locator('[data-die="4"]')).to_have_attribute("aria-pressed", "true")
    expect(watcher.locator('[data-die="4"]')).to_be_disabled()
    pips = contrast(watcher, "#dice-tray .pip.on", fg="backgroundColor", on_parent=True)
    held = contrast(watcher, '[data-die="4"] .held-label')
    print({"pips": round(min(pips), 2), "HELD": round(min(held), 2)})
    assert min(pips) >= 3.0
    assert min(held) >= 4.5
    host.context.close()
    guest.context.close()


# -- 360 px wide ---------------------------------------------------------------------------------------


def test_no_page_scrolls_sideways_at_360(browser: Browser, live_server_url: str):
    user = UserFactory(username="narrow-nina")
    friend = UserFactory(username="a-friend-with-a-rather-long-name")
    Friendship.objects.create(
        user_low=min(user, friend, key=lambda u: u.pk), user_high=max(user, friend, key=lambda u: u.pk)
    )
    four = make_game([user, "easy", "medium", "hard"])
    make_game([user, "hard"])
    page = new_page(browser, PHONE)
    base = live_server_url
    wide: dict[str, tuple[int, int]] = {}

    def check(name: str) -> None:
        page.wait_for_load_state()
        sizes = no_sideways_scroll(page)
        if sizes[0] > sizes[1]:
            wide[name] = sizes

    for path in ("/", "/accounts/login/", "/accounts/signup/", "/leaderboard/"):
        page.goto(base + path)
        check(path)
    start_solo(page, base)
    roll(page)
    check("solo game mid-turn")
    log_in(page, base, user.username)
    start_against_computers(page, base, 3)
    roll(page)
    check("game against 3 computers")
    for path in (
        f"/games/{four.pk}/review/",
        f"/games/{four.pk}/",
        "/players/",
        "/leaderboard/",
        "/games/",
        f"/players/{user.username}/",
        "/accounts/friends/",
    ):
        page.goto(base + path)
        check(path)
    assert not wide, f"pages wider than the 360-px screen (scrollWidth, innerWidth): {wide}"

    # The review's final scores are on screen: the last seat's total within the 360 px.
    page.goto(f"{base}/games/{four.pk}/review/")
    last_total = page.locator(".review-sheet tfoot [data-total]").last
    last_total.scroll_into_view_if_needed()
    box = last_total.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    page.context.close()


def test_a_four_player_sheet_is_readable_on_a_phone_and_roomy_on_a_desktop(
    browser: Browser, live_server_url: str
):
    user = UserFactory(username="four-seats")
    page = new_page(browser, PHONE)
    log_in(page, live_server_url, user.username)
    start_against_computers(page, live_server_url, 3)
    sheet = page.locator("#scoresheet")
    # At 360 px: short box names, the whole sheet within the screen (no scrolling inside it either).
    expect(page.locator('#scoresheet [data-box="THREE_OF_A_KIND"] .box-short')).to_be_visible()
    assert sheet.evaluate("s => s.scrollWidth <= s.clientWidth + 1"), "the 4-seat sheet scrolls at 360 px"
    # ... while the full name stays the button's name for screen readers.
    expect(page.get_by_role("button", name="Three of a kind", exact=True)).to_have_count(1)

    page.set_viewport_size(DESKTOP)
    expect(page.locator('#scoresheet [data-box="THREE_OF_A_KIND"] .box-full')).to_be_visible()
    expect(page.locator('#scoresheet [data-box="THREE_OF_A_KIND"] .box-short')).to_be_hidden()
    width = sheet.bounding_box()["width"]
    row = page.locator('#scoresheet [data-box="SMALL_STRAIGHT"]').bounding_box()
    print({"desktop sheet width": width, "box button height": row["height"]})
    assert width >= 600, f"a 4-player sheet squeezed into {width} px on a {DESKTOP['width']}-px screen"
    assert row["height"] <= 50, "box names wrap onto several lines on a desktop"
    page.context.close()


# -- phone first ---------------------------------------------------------------------------------------


def _inside(box: dict, viewport: dict) -> bool:
    return (
        box["y"] >= 0
        and box["y"] + box["height"] <= viewport["height"]
        and box["x"] >= 0
        and (box["x"] + box["width"] <= viewport["width"])
    )


def test_on_a_phone_the_dice_and_roll_stay_in_reach_while_the_sheet_scrolls(
    browser: Browser, live_server_url: str
):
    user = UserFactory(username="thumb")
    page = new_page(browser, PHONE)
    log_in(page, live_server_url, user.username)
    start_against_computers(page, live_server_url, 3)
    roll(page)
    for name in ("CHANCE", "PENTA"):
        button = page.locator(f'#scoresheet [data-box="{name}"]')
        button.scroll_into_view_if_needed()
        assert page.evaluate("window.scrollY") > 0, "the page did not need to scroll (test proves nothing)"
        dice = page.locator("#dice-tray").bounding_box()
        roll_box = page.locator("[data-action=roll]").bounding_box()
        assert _inside(dice, PHONE), f"the dice are off screen while {name} is in view: {dice}"
        assert _inside(roll_box, PHONE), f"the Roll button is off screen while {name} is in view: {roll_box}"
        # The row is not under the pinned dock: the point at its centre is the button itself.
        hit = button.evaluate(
            "b => { const r = b.getBoundingClientRect();"
            " const e = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);"
            " return b.contains(e); }"
        )
        assert hit, f"the {name} row is covered by the pinned dice and actions"
    # Touch targets of at least 44 px; and the row really takes a tap.
    for selector in (
        "#dice-tray .die",
        "[data-action=roll]",
        "[data-action=confirm]",
        "#scoresheet .box-button",
    ):
        for handle in page.locator(selector).element_handles():
            box = handle.bounding_box()
            assert box["height"] >= 44 and box["width"] >= 44, f"{selector}: {box}"
    page.locator('#scoresheet [data-box="CHANCE"]').click()
    expect(page.locator('#scoresheet [data-box="CHANCE"]')).to_have_attribute("aria-pressed", "true")
    page.context.close()


# -- dice that feel like dice, and a skip link ---------------------------------------------------------


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


def test_rolled_dice_tumble_once_per_roll_and_never_with_reduced_motion(
    browser: Browser, live_server_url: str
):
    """The dice just rolled tumble, on every roll, also when the update morphs them in place; a hold
    replays nothing; a held die does not tumble on the next roll; no motion when the system asks."""
    page = new_page(browser, DESKTOP)
    start_solo(page, live_server_url)
    page.evaluate(TRACK_TUMBLES)
    roll(page)
    wait_for_tumbles(page, 5)
    assert sorted(page.evaluate("window.tumbles")) == ["1", "2", "3", "4", "5"]
    die = page.locator('[data-die="1"]')
    expect(die).to_have_class(re.compile(r"\broll-1\b"))

    page.evaluate("window.tumbles = []")
    die.click()  # held: nothing tumbles for a hold, and it will not be rolled again
    expect(die).to_have_attribute("aria-pressed", "true")
    page.evaluate(NEXT_FRAMES)
    assert page.evaluate("window.tumbles") == [], "a hold replayed the roll's tumble"

    roll(page)
    wait_for_tumbles(page, 4)
    page.evaluate(NEXT_FRAMES)
    assert sorted(page.evaluate("window.tumbles")) == ["2", "3", "4", "5"]
    expect(page.locator('[data-die="2"]')).to_have_class(re.compile(r"\broll-2\b"))
    expect(die).not_to_have_class(re.compile(r"\broll-\d"))
    # Nine pips a face, the value in its name and data attribute.
    expect(die.locator(".pip")).to_have_count(9)
    value = die.get_attribute("data-value")
    expect(die.locator(".pip.on")).to_have_count(int(value))
    expect(die).to_have_attribute("aria-label", f"Die 1: {value}, held")

    still = new_page(browser, DESKTOP)
    still.emulate_media(reduced_motion="reduce")
    start_solo(still, live_server_url)
    still.evaluate(TRACK_TUMBLES)
    roll(still)
    still.evaluate(NEXT_FRAMES)
    assert still.evaluate("window.tumbles") == []
    assert still.locator('[data-die="1"] .face').evaluate("f => getComputedStyle(f).animationName") == "none"
    page.context.close()
    still.context.close()


def test_skip_link_comes_first_and_leads_to_the_dice(browser: Browser, live_server_url: str):
    page = new_page(browser, PHONE)
    start_solo(page, live_server_url)
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to content")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    expect(skip).to_have_attribute("href", "#dock")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"#dock$"))
    page.goto(live_server_url + "/accounts/login/")
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to content")).to_have_attribute("href", "#main")
    page.context.close()
