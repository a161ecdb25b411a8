"""The notification settings page as a person uses it: "Notify me on this device", and the address for
the daily digest.

Headless Chromium has no push service: with the permission granted, PushManager.subscribe() still fails
("Registration failed - permission denied"), and the page must say so and stay usable. Where a push
service is needed, the test plays it: the browser's subscribe() answers a subscription to the tests'
push service on this machine (tests/support/push_service.py), so that the page's script, the server
and the service worker run as they are. A turn then reaches the device as a push the service decrypts,
and the worker shows it as a notification."""

from __future__ import annotations

import base64
import json
import re

import pytest
from django.conf import settings
from playwright.sync_api import Browser, expect

from notifications.models import MailSettings, Notification, PushSubscription
from tests.browser.pages import (
    LAPTOP,
    WAIT_MS,
    correspondence_game,
    deliver_push,
    log_in,
    logged_in_page,
    notify_me_button,
    notify_status,
    open_with_notices,
    play_my_turn,
    play_the_push_service,
    service_worker_ready,
    shown_notifications,
    subscribe_options,
)
from tests.support.factories import UserFactory, befriend
from tests.support.push_service import BrowserSubscription, PushService, verify_vapid

pytestmark = pytest.mark.django_db(transaction=True)

NO_DEVICE = "No device gets notifications yet."


def key_bytes(value: str) -> list[int]:
    return list(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)))


def test_notify_me_says_so_when_the_browser_cannot_subscribe(browser: Browser, live_server_url: str):
    femke = UserFactory(username="femke")
    page = logged_in_page(browser, live_server_url, "femke")
    page.context.grant_permissions(["notifications"], origin=live_server_url)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live_server_url}/notifications/")
    expect(page.get_by_role("heading", name="Notifications", exact=True)).to_be_visible()
    # The header links here on every page.
    expect(page.locator("nav").get_by_role("link", name="Notifications")).to_have_attribute(
        "href", "/notifications/"
    )
    service_worker_ready(page)

    notify_me_button(page).click()
    # The browser's refusal is shown, as an error, beside the button, which can be pressed again.
    expect(notify_status(page)).to_have_class(re.compile(r"\bmsg-error\b"))
    expect(notify_status(page)).to_have_text(re.compile(r"\S"))
    expect(notify_status(page)).not_to_have_text("This device gets notifications now.")
    expect(notify_me_button(page)).to_be_enabled()
    expect(page.get_by_text(NO_DEVICE)).to_be_visible()
    assert not PushSubscription.objects.filter(user=femke).exists()
    assert errors == []


def test_notify_me_says_why_in_the_pages_own_words(browser: Browser, live_server_url: str):
    UserFactory(username="femke")
    page = logged_in_page(browser, live_server_url, "femke")
    page.context.grant_permissions(["notifications"], origin=live_server_url)
    page.goto(f"{live_server_url}/notifications/")
    service_worker_ready(page)
    button = notify_me_button(page)
    own_words = [button.get_attribute(f"data-{name}") for name in ("failed", "denied", "unsupported")]
    button.click()
    expect(notify_status(page)).to_have_class(re.compile(r"\bmsg-error\b"))
    assert notify_status(page).text_content() in own_words


def test_notify_me_adds_the_device_and_a_turn_reaches_it(browser: Browser, live_server_url: str):
    hana, femke = UserFactory(username="hana"), UserFactory(username="femke")
    befriend(hana, femke)
    game = correspondence_game(hana, femke)  # hana moves first
    with PushService() as push:
        device = BrowserSubscription(push.endpoint("femke-laptop"))
        page = logged_in_page(browser, live_server_url, "femke")
        page.context.grant_permissions(["notifications"], origin=live_server_url)
        play_the_push_service(page, device.as_json())
        page.goto(f"{live_server_url}/notifications/")
        expect(page.get_by_text(NO_DEVICE)).to_be_visible()
        server_key = notify_me_button(page).get_attribute("data-key")

        notify_me_button(page).click()
        expect(notify_status(page)).to_have_text("This device gets notifications now.")
        # It reloads itself: the device is listed, with a button that removes it.
        listed = page.locator("li[data-device]")
        expect(listed).to_have_count(1)
        # The page had subscribed with the server's key, for notifications the person sees.
        assert subscribe_options(page) == {
            "userVisibleOnly": True,
            "applicationServerKey": key_bytes(server_key),
        }
        expect(listed).to_contain_text(re.compile(r"· since \w"))
        expect(listed.get_by_role("button", name="Remove")).to_be_visible()
        expect(page.get_by_text(NO_DEVICE)).to_have_count(0)
        saved = PushSubscription.objects.get(user=femke)
        assert (saved.endpoint, saved.p256dh, saved.auth) == (device.endpoint, device.p256dh, device.auth)
        open_with_notices(page, f"{live_server_url}/notifications/", femke)

        # hana moves, in her own browser: femke's turn reaches her device, which is not on the game.
        hana_page = logged_in_page(browser, live_server_url, "hana")
        hana_page.goto(f"{live_server_url}/games/{game.pk}/")
        play_my_turn(hana_page, 1)
        for _ in range(WAIT_MS // 100):
            if push.received_at(device.endpoint):
                break
            page.wait_for_timeout(100)
        received = push.received_at(device.endpoint)
        assert len(received) == 1, received
        request = received[0]
        assert request.method == "POST"
        assert request.headers["Content-Encoding"] == "aes128gcm"
        token = verify_vapid(request.headers["Authorization"])
        assert token.key == server_key
        assert token.claims["aud"] == push.origin
        assert token.claims["sub"] == settings.PENTA_VAPID_SUBJECT
        message = device.decrypt(request.body)
        assert message["title"] == "Penta: your turn"
        assert re.fullmatch(r"Your turn against hana \((23|24)\shours? left\)\.", message["body"]), message
        assert message["url"] == f"/games/{game.pk}/"
        assert message["tag"] == f"game-{game.pk}"

        # Her open page gets the same news as a live notice, with the way to the game.
        notice = page.locator("#notifications .notice").filter(has_text="Your turn against hana")
        expect(notice.get_by_role("link", name="Play")).to_have_attribute("href", f"/games/{game.pk}/")

        # The push, handed to the browser's service worker, shows as a notification that opens the game.
        deliver_push(page, live_server_url, json.dumps(message))
        for _ in range(WAIT_MS // 100):
            if shown := shown_notifications(page):
                break
            page.wait_for_timeout(100)
        assert shown == [
            {
                "title": "Penta: your turn",
                "body": message["body"],
                "tag": f"game-{game.pk}",
                "data": {"url": f"/games/{game.pk}/"},
            }
        ]

        # femke removes the device: it gets nothing more.
        page.locator("li[data-device]").get_by_role("button", name="Remove").click()
        expect(page.get_by_text(NO_DEVICE)).to_be_visible()
        assert not PushSubscription.objects.filter(user=femke).exists()


CHROME_ON_WINDOWS = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 "
    "Safari/537.36"
)
EDGE_ON_WINDOWS = f"{CHROME_ON_WINDOWS} Edg/131.0.0.0"


def test_two_browsers_of_one_computer_are_told_apart(browser: Browser, live_server_url: str):
    UserFactory(username="femke")
    with PushService() as push:
        for name, user_agent in (("chrome", CHROME_ON_WINDOWS), ("edge", EDGE_ON_WINDOWS)):
            context = browser.new_context(locale="en-GB", viewport=LAPTOP, user_agent=user_agent)
            context.grant_permissions(["notifications"], origin=live_server_url)
            page = context.new_page()
            log_in(page, live_server_url, "femke")
            play_the_push_service(page, BrowserSubscription(push.endpoint(name)).as_json())
            page.goto(f"{live_server_url}/notifications/")
            notify_me_button(page).click()
            expect(notify_status(page)).to_have_text("This device gets notifications now.")
        listed = page.locator("li[data-device]")
        expect(listed).to_have_count(2)
        chrome, edge = (" ".join(text.split()) for text in listed.all_inner_texts())
        assert chrome != edge, chrome


def test_the_digest_address_is_checked_before_anything_is_saved(browser: Browser, live_server_url: str):
    femke = UserFactory(username="femke")
    page = logged_in_page(browser, live_server_url, "femke")
    page.goto(f"{live_server_url}/notifications/")
    address = page.get_by_label("Address")
    save = page.get_by_role("button", name="Save")

    # Not an address at all: the browser itself keeps the form from going.
    address.fill("femke at example.org")
    save.click()
    expect(page).to_have_url(f"{live_server_url}/notifications/")
    assert address.evaluate("(input) => input.validity.typeMismatch") is True

    # An address the browser lets through but the server does not (no domain ending): said on the page.
    address.fill("femke@example")
    page.get_by_label("Send me the daily digest").check()
    save.click()
    expect(page.get_by_role("alert")).to_have_text("That is not an e-mail address.")
    expect(page.locator("[data-saved], [data-mail-state]")).to_have_count(0)
    assert not MailSettings.objects.filter(user=femke).exists()
    assert not Notification.objects.filter(user=femke, kind=Notification.Kind.CONFIRM).exists()

    # A real address, with the digest: saved, and a confirmation is on its way.
    page.get_by_label("Address").fill("femke@example.org")
    page.get_by_label("Send me the daily digest").check()
    page.get_by_role("button", name="Save").click()
    expect(page.locator("[data-saved]")).to_have_text(
        "Saved. A confirmation link is on its way to femke@example.org."
    )
    expect(page.get_by_role("alert")).to_have_count(0)
    expect(page.get_by_label("Address")).to_have_value("femke@example.org")
    expect(page.get_by_label("Send me the daily digest")).to_be_checked()
    expect(page.locator("[data-mail-state]")).to_have_attribute("data-mail-state", "waiting")
    mail = MailSettings.objects.get(user=femke)
    assert (mail.address, mail.digest, mail.confirmed_at) == ("femke@example.org", True, None)
    assert Notification.objects.filter(
        user=femke, kind=Notification.Kind.CONFIRM, address="femke@example.org"
    ).exists()

    # A wrong address later changes nothing of what was saved.
    page.get_by_label("Address").fill("femke@example")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert")).to_have_text("That is not an e-mail address.")
    mail.refresh_from_db()
    assert (mail.address, mail.digest, mail.confirmed_at) == ("femke@example.org", True, None)
    assert Notification.objects.filter(user=femke, kind=Notification.Kind.CONFIRM).count() == 1
