"""What a device's push endpoint may be (notifications.endpoints), in production mode
(PENTA_PUSH_ALLOW_LOOPBACK off): a public https address on port 443 only. Every way of naming this
machine, a private network or a cloud's metadata service is refused when it is stored, with a 400 that
says why; a public-looking name is refused too when it resolves to such an address (the tests' own
resolver answers: no query leaves the machine). The real push services' endpoints are kept, though
this machine cannot resolve them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from django.urls import reverse

from dicegame.errors import GameActionError
from notifications import endpoints
from notifications.endpoints import EndpointRefused
from notifications.models import PushSubscription
from tests.support import ROOT
from tests.support.factories import client_for
from tests.support.notifications import add_device_from_page, subscribe
from tests.support.push_service import BrowserSubscription

REFUSED = {
    "private_address": [
        # This machine: Redis, PostgreSQL, daphne's /metrics, any loopback address.
        "https://127.0.0.1/",
        "https://127.0.0.1:6379/",
        "https://127.0.0.1:5432/",
        "https://127.255.255.254/",
        "https://[::1]/",
        "https://[::1]:8000/metrics",
        "https://0.0.0.0/",
        "https://[::]/",
        # Private networks (RFC 1918), shared (CGNAT, and Alibaba's metadata), benchmarking, documentation.
        "https://10.0.0.5/",
        "https://10.0.0.5:8080/internal-admin/",
        "https://172.16.0.1/",
        "https://172.31.255.255/",
        "https://192.168.1.1/",
        "https://100.64.0.1/",
        "https://100.100.100.200/latest/meta-data/",
        "https://198.18.0.1/",
        "https://192.0.2.1/",
        # Link-local: the metadata service of AWS, GCP, Azure, OpenStack.
        "https://169.254.169.254/latest/meta-data/",
        "https://169.254.0.1/",
        "https://[fe80::1]/",
        # Unique-local and site-local IPv6.
        "https://[fd00::1]/",
        "https://[fc00::1]/",
        "https://[fec0::1]/",
        # Multicast, reserved, broadcast.
        "https://224.0.0.1/",
        "https://[ff02::1]/",
        "https://240.0.0.1/",
        "https://255.255.255.255/",
        # IPv4 inside IPv6: mapped, compatible, 6to4, NAT64 of a private address, Teredo.
        "https://[::ffff:127.0.0.1]/",
        "https://[::ffff:7f00:1]/",
        "https://[::ffff:10.0.0.5]/",
        "https://[::ffff:8.8.8.8]/",
        "https://[::127.0.0.1]/",
        "https://[2002:7f00:1::1]/",
        "https://[2002:a00:5::1]/",
        "https://[64:ff9b::a00:5]/",
        "https://[64:ff9b::7f00:1]/",
        "https://[64:ff9b::a9fe:a9fe]/",
        "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
    ],
    "numeric": [
        # Read as 127.0.0.1 by inet_aton and by browsers.
        "https://127.1/",
        "https://127.0.1/",
        "https://2130706433/",
        "https://0x7f.1/",
        "https://0x7f000001/",
        "https://0x7F.0.0.1/",
        "https://0177.0.0.1/",
        "https://0177.0.0.01/",
        "https://017700000001/",
        "https://127.0.0.1.1/",
        "https://0/",
        # Public addresses too, when not written the usual way (010 is 8 to inet_aton).
        "https://8.8.8.010/",
        "https://08.8.8.8/",
        "https://134744072/",
        "https://push.example.123/",
    ],
    "internal_name": [
        "https://localhost/",
        "https://LOCALHOST./",
        "https://localhost:8000/metrics",
        "https://push.localhost/",
        "https://metadata.google.internal/computeMetadata/v1/",
        "https://metadata/",
        "https://redis/",
        "https://instance-data/latest/",
        "https://host.docker.internal/",
        "https://printer.local/",
        "https://nas.lan/",
        "https://router.home.arpa/",
        "https://box.home/",
        "https://wiki.intranet/",
        "https://db.corp/",
        "https://server.localdomain/",
        "https://vault.private/",
        "https://kubernetes.default.svc/",
        "https://1.0.0.127.in-addr.arpa/",
    ],
    "credentials": [
        "https://user:secret@fcm.googleapis.com/fcm/send/abc",
        "https://user@fcm.googleapis.com/fcm/send/abc",
        "https://fcm.googleapis.com@127.0.0.1/",
        "https://:@fcm.googleapis.com/",
    ],
    "scheme": [
        "http://fcm.googleapis.com/fcm/send/abc",
        "ftp://push.example/1",
        "wss://push.example/1",
        "gopher://push.example:6379/_INFO",
    ],
    "port": [
        "https://fcm.googleapis.com:8443/fcm/send/abc",
        "https://updates.push.services.mozilla.com:80/wpush/v2/abc",
        "https://push.example:6379/",
        "https://8.8.8.8:22/",
    ],
    "characters": [
        "https://fcm.googleapis.com/fcm/send/a\x00b",
        "https://fcm.googleapis.com/fcm/send/a\r\nX-Injected: 1",
        "https://fcm.googleapis.com/fcm/send/a\tb",
        "https://fcm.googleapis.com/fcm/send/a b",
        "https://fcm.googleapis.com/fcm/send/\x7f",
        "https://evil.example\\@127.0.0.1/",
        "https://ｆcm.googleapis.com/fcm/send/abc",
        "https://127。0。0。1/",
        "https://１２７.０.０.１/",
        "https://fcm.googleapis.com/fcm/send/é",
        "https://fcm.googleapis.com/fcm/send/abc#fragment",
        "https://push.example/<script>",
    ],
    "too_long": [
        "https://fcm.googleapis.com/fcm/send/" + "a" * 1000,
    ],
    "malformed": [
        "",
        "not-a-url",
        "https://",
        "https:///fcm/send/abc",
        "https://[::1/",
        "https://[fe80::1%25eth0]/",
        "https://fcm.googleapis.com:99999/",
        "https://fcm.googleapis.com:port/",
        "https://-push-.example/",
        "https://push_service.example/",
        "https://push..example/",
        "file:///etc/passwd",
    ],
}
CASES = [(kind, url) for kind, urls in REFUSED.items() for url in urls]

# As the browsers hand them over (shapes of real subscriptions).
REAL_SERVICES = [
    "https://fcm.googleapis.com/fcm/send/dXJpYmFzZTY0OnRva2Vu:APA91bHPRgkF3JUikC4ENAHEeMrd41Zxv3hVZ"
    "jC9KtT8OvPVGJ-hMMRKJRZzeUqfVTIl2ZzI0sO5nT-F7qQ1FZ9a9uYm",
    "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABl4x3n0kHd2Pq_vGZyS7E8mXy0lN9aQwX3v2Wn"
    "4tU-o9Ff0pSxHkU5h6l1zY0uJH5RbVqZ8y",
    "https://web.push.apple.com/QGuQyavXutnMH8UjRjp3MG2WcJx0rJ3bRZ0p4tYx1Kc9XWm0e8L5kC2sPq7cN1mA",
    "https://wns2-par02p.notify.windows.com/w/?token=BQYAAADmCJ9f1wS1lCm1sP3N%2bG3yQ2YwR3T1ZW5sZXRva2Vu%3d",
    "https://db5p.notify.windows.com/w/?token=AwYAAAB%2fQ%3d%3d",
    "https://fcm.googleapis.com:443/fcm/send/abc",
    "https://FCM.GoogleApis.com./fcm/send/abc",
    "https://8.8.8.8/push/abc",
    "https://[2606:4700:4700::1111]/push/abc",
    "https://push.example/1",
]


@pytest.fixture(autouse=True)
def production_mode(settings):
    """As in production: no loopback, nothing private."""
    settings.PENTA_PUSH_ALLOW_LOOPBACK = False


def refusal_of(url: str) -> str:
    with pytest.raises(EndpointRefused) as refused:
        endpoints.check_to_store(url)
    return refused.value.kind


@pytest.mark.parametrize(("kind", "url"), CASES, ids=[f"{k}:{u[:60]!r}" for k, u in CASES])
def test_an_endpoint_that_is_not_a_public_https_address_is_refused(kind, url):
    assert refusal_of(url) == kind


@pytest.mark.parametrize("url", REAL_SERVICES)
def test_the_real_push_services_endpoints_are_kept_though_their_names_do_not_resolve_here(url, resolver):
    endpoint = endpoints.check_to_store(url)
    assert endpoint.scheme == "https" and endpoint.port == 443
    assert endpoint.host == endpoint.host.lower() and not endpoint.host.endswith(".")


@pytest.mark.parametrize(
    "addresses",
    [
        ["10.0.0.5"],
        ["192.168.1.1"],
        ["169.254.169.254"],
        ["127.0.0.1"],
        ["0.0.0.0"],
        ["100.64.0.1"],
        ["fd00::1"],
        ["fe80::1"],
        ["::1"],
        ["::ffff:127.0.0.1"],
        ["64:ff9b::a9fe:a9fe"],
        ["8.8.8.8", "10.0.0.5"],  # one bad address among good ones is enough
        ["2606:4700:4700::1111", "fd00::1"],
    ],
)
def test_a_public_looking_name_that_resolves_to_a_private_address_is_refused(resolver, addresses):
    resolver.map("fcm.googleapis.com", *addresses)
    assert refusal_of("https://fcm.googleapis.com/fcm/send/abc") == "private_address"
    assert "fcm.googleapis.com" in resolver.lookups


def test_a_name_that_resolves_to_public_addresses_only_is_kept(resolver):
    resolver.map("fcm.googleapis.com", "142.250.185.74", "2a00:1450:4001:82b::200a")
    assert endpoints.check_to_store("https://fcm.googleapis.com/fcm/send/abc").host == "fcm.googleapis.com"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("https://127.0.0.1:6379/", "private, local or reserved"),
        ("https://169.254.169.254/latest/meta-data/", "private, local or reserved"),
        ("https://2130706433/", "as a number"),
        ("https://metadata.google.internal/", "private network"),
        ("https://user:pw@fcm.googleapis.com/x", "user name or password"),
        ("http://fcm.googleapis.com/x", "https://"),
        ("https://fcm.googleapis.com:8443/x", "443"),
        ("https://fcm.googleapis.com/" + "x" * 1000, "too long"),
    ],
)
def test_the_page_is_told_why_with_a_400_and_nothing_is_kept(user, url, words):
    response = add_device_from_page(client_for(user, enforce_csrf_checks=True), BrowserSubscription(url))

    assert response.status_code == 400, response.content
    assert words in response.json()["error"]
    assert not PushSubscription.objects.exists()


@pytest.mark.django_db
def test_the_refusal_is_in_the_persons_language(user):
    browser = BrowserSubscription("https://10.0.0.5/")
    response = add_device_from_page(client_for(user, language="nl", enforce_csrf_checks=True), browser)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error and "private, local or reserved" not in error


@pytest.mark.django_db
def test_the_services_refuse_it_too(user):
    with pytest.raises(GameActionError) as refused:
        subscribe(user, "https://[fd00::1]/push")
    assert refused.value.status == 400
    assert not PushSubscription.objects.exists()


# -- finding 9: an endpoint too long for its column, a NUL inside the JSON: a 400, never a 500 -------------


def post_json(client, body: bytes):
    return client.post(reverse("notifications:device_add"), data=body, content_type="application/json")


@pytest.mark.django_db
@pytest.mark.parametrize("length", [1001, 1200, 3500])
def test_an_endpoint_longer_than_its_column_is_a_400(user, length):
    url = "https://fcm.googleapis.com/fcm/send/"
    browser = BrowserSubscription(url + "a" * (length - len(url)))

    response = post_json(client_for(user), json.dumps(browser.as_json()).encode())

    assert response.status_code == 400
    assert "too long" in response.json()["error"]
    assert not PushSubscription.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("field", ["endpoint", "p256dh", "auth", "extra"])
def test_a_nul_anywhere_in_the_json_is_a_400_that_the_page_can_show(user, field):
    data = BrowserSubscription("https://fcm.googleapis.com/fcm/send/abc").as_json()
    if field == "endpoint":
        data["endpoint"] += "\x00"
    elif field == "extra":
        data["expirationTime"] = {"nested": ["ok", "bad\x00"]}
    else:
        data["keys"][field] += "\x00"

    response = post_json(client_for(user), json.dumps(data).encode())  # written \u0000, as JSON does

    assert response.status_code == 400
    assert "NUL" in response.json()["error"]
    assert not PushSubscription.objects.exists()


@pytest.mark.django_db
def test_a_raw_nul_byte_in_the_body_is_a_400(user):
    body = json.dumps(BrowserSubscription("https://fcm.googleapis.com/fcm/send/abc").as_json()).encode()
    response = post_json(client_for(user), body.replace(b"abc", b"a\x00bc"))
    assert response.status_code == 400
    assert not PushSubscription.objects.exists()


@pytest.mark.django_db
def test_an_escaped_backslash_before_u0000_is_no_nul(user):
    """`\\\\u0000` in JSON is a backslash and the text "u0000": not refused as a NUL (the endpoint
    check refuses the backslash)."""
    data = BrowserSubscription("https://fcm.googleapis.com/fcm/send/abc").as_json()
    data["endpoint"] += "\\u0000"
    response = post_json(client_for(user), json.dumps(data).encode())
    assert response.status_code == 400
    assert "NUL" not in response.json()["error"]


# -- the one setting that relaxes the rules -------------------------------------------------------------


def allow_loopback_under(**env: str) -> str:
    environment = {**os.environ, "SECRET_KEY": "k" * 50}
    for name in ("DJANGO_SETTINGS_MODULE", "PENTA_PUSH_ALLOW_LOOPBACK", "DEBUG"):
        environment.pop(name, None)
    environment.update(env)
    result = subprocess.run(
        [sys.executable, "-c", "from penta import settings; print(settings.PENTA_PUSH_ALLOW_LOOPBACK)"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_production_never_allows_loopback_whatever_the_environment_says():
    assert allow_loopback_under(DEBUG="false", PENTA_PUSH_ALLOW_LOOPBACK="true") == "False"
    assert allow_loopback_under(DEBUG="true", PENTA_PUSH_ALLOW_LOOPBACK="false") == "False"
    assert allow_loopback_under(DEBUG="true") == "True"


def test_allowing_loopback_allows_loopback_and_nothing_private(settings):
    settings.PENTA_PUSH_ALLOW_LOOPBACK = True
    loopback = (
        "https://127.0.0.1:8443/push",
        "http://127.0.0.1:8000/push",
        "https://[::1]:9/",
        "https://localhost:1/",
    )
    for url in loopback:
        assert endpoints.check(url).port != 443
    private = (
        "https://10.0.0.5/",
        "https://169.254.169.254/",
        "https://[fd00::1]/",
        "https://[::ffff:127.0.0.1]/",
    )
    for url in private:
        assert refusal_of(url) == "private_address"
    for url in ("http://10.0.0.5/", "http://push.example/", "https://127.1/"):
        with pytest.raises(EndpointRefused):
            endpoints.check(url)
