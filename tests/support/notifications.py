"""Notifications for a test: a device subscribed through the services or added from the preferences page
as its script does, the notification queued for a person's turn, and the mail side: an address already
confirmed, and the absolute links in a mail (found, made a path for the test client, their token) with
the CSRF token of the page they open."""

from __future__ import annotations

import json
import re
import threading

from django.conf import settings
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from notifications import services
from notifications.models import MailSettings, Notification, PushSubscription
from tests.support.push_service import BrowserSubscription

SITE = "https://penta.example"  # the site's address in the mail tests (the smtp fixture sets it)
ADDRESS = "hana@example.com"
YOUR_TURN = Notification.Kind.YOUR_TURN


# -- devices ------------------------------------------------------------------------------------------


def subscribe(
    user, browser: BrowserSubscription | str, language: str = "en", *, label: str = ""
) -> PushSubscription:
    """The browser's subscription kept for `user` by the services (an endpoint: a fresh browser at it)."""
    if isinstance(browser, str):
        browser = BrowserSubscription(browser)
    return services.push_subscribe(
        user=user,
        endpoint=browser.endpoint,
        p256dh=browser.p256dh,
        auth=browser.auth,
        label=label,
        language=language,
    )


def add_device_from_page(client, browser: BrowserSubscription):
    """As the preferences page's script does: the page's CSRF token (its data-csrf), the subscription
    POSTed as JSON. The response, for the test to check."""
    page = client.get(reverse("notifications:preferences")).content.decode()
    csrf = re.search(r'data-csrf="([^"]+)"', page).group(1)
    return client.post(
        reverse("notifications:device_add"),
        data=json.dumps(browser.as_json()),
        content_type="application/json",
        headers={"X-CSRFToken": csrf},
    )


def sender_thread(send) -> threading.Thread:
    """A sender (`services.send_due`, ...) in a thread of its own, as another clock would run it: its
    database connection is closed when it ends (a connection left open keeps the test database)."""

    def run() -> None:
        try:
            send()
        finally:
            connection.close()

    return threading.Thread(target=run, name="another-sender")


def your_turn(user, game, kind=YOUR_TURN) -> Notification:
    """The one notification of `kind` queued for `user` in `game`."""
    return Notification.objects.get(user=user, game=game, kind=kind)


# -- mail ---------------------------------------------------------------------------------------------


def confirmed_mail(
    user, *, language: str = "en", digest: bool = True, address: str = ADDRESS
) -> MailSettings:
    """An address the person has confirmed already."""
    return MailSettings.objects.create(
        user=user, address=address, digest=digest, language=language, confirmed_at=timezone.now()
    )


def link_in(text: str, name: str) -> str:
    """The one absolute link to `name` (confirm, unsubscribe) in a mail's text (or header): on the site's
    address with a single slash after it."""
    site = re.escape(settings.PENTA_SITE_URL.rstrip("/"))
    [url] = set(re.findall(rf"{site}/notifications/[a-z/]*{name}/[^/\s\"<>]+/", text))
    return url


def site_path(url: str) -> str:
    """The path of one of the site's absolute links (the test client is the site's own host)."""
    site = settings.PENTA_SITE_URL.rstrip("/")
    assert url.startswith(site + "/"), url
    return url.removeprefix(site)


def token_of(url: str) -> str:
    """The signed token a link ends in."""
    return url.rstrip("/").rsplit("/", 1)[1]


def csrf_token_of(html: str) -> str:
    """The CSRF token of a page's form."""
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
