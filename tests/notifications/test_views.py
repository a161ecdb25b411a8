"""The notification settings page and what its script sends: logged in only, CSRF on every change, a
refused request answers 4xx with the message the page shows and changes nothing."""

import json

import pytest
from django.test import Client
from django.urls import reverse

from notifications import services
from notifications.models import MailSettings, Notification, PushSubscription
from notifications.vapid import application_server_key
from tests.support.factories import client_for
from tests.support.notifications import subscribe
from tests.support.push_service import BrowserSubscription

pytestmark = pytest.mark.django_db

PREFERENCES = reverse("notifications:preferences")
DEVICES = reverse("notifications:device_add")
MAIL = reverse("notifications:mail")


def post_device(client, data, **headers):
    body = data if isinstance(data, (bytes, str)) else json.dumps(data)
    return client.post(DEVICES, data=body, content_type="application/json", headers=headers)


def a_device(user) -> PushSubscription:
    return subscribe(user, "https://push.example/phone", label="Phone")


def test_the_page_is_for_logged_in_people():
    response = Client().get(PREFERENCES)
    assert response.status_code == 302 and response["Location"].startswith(reverse("accounts:login"))
    assert Client().post(MAIL, {"address": "a@example.com"}).status_code == 302
    assert not MailSettings.objects.exists()


def test_the_page_offers_this_device_and_lists_the_others(host):
    a_device(host)
    page = client_for(host).get(PREFERENCES).content.decode()
    assert f'data-key="{application_server_key()}"' in page and application_server_key()
    assert "Notify me on this device" in page and "Phone" in page


def test_adding_a_device_needs_the_csrf_token(host):
    browser = BrowserSubscription("https://push.example/1")
    client = client_for(host, enforce_csrf_checks=True)
    assert post_device(client, browser.as_json()).status_code == 403
    assert not PushSubscription.objects.exists()


def test_the_device_is_stored_in_the_pages_language(host):
    browser = BrowserSubscription("https://push.example/1")
    response = post_device(client_for(host, language="nl"), browser.as_json())
    assert response.status_code == 201
    device = PushSubscription.objects.get()
    assert response.json() == {"id": device.pk}
    assert (device.user, device.language, device.p256dh) == (host, "nl", browser.p256dh)


@pytest.mark.parametrize(
    ("body", "status"),
    [
        (b"not json", 400),
        ({"endpoint": "https://push.example/1"}, 400),  # no keys
        ({"endpoint": "https://push.example/1", "keys": "both"}, 400),
        ([1, 2, 3], 400),
        ({"endpoint": "https://push.example/1", "keys": {"p256dh": "x" * 5000, "auth": "y"}}, 413),
    ],
)
def test_a_malformed_subscription_is_refused_with_a_message(host, body, status):
    response = post_device(client_for(host), body)
    assert response.status_code == status
    assert response.json()["error"]
    assert not PushSubscription.objects.exists()


def test_a_subscription_with_a_bad_key_is_refused_with_its_reason(host):
    data = BrowserSubscription("https://push.example/1").as_json()
    data["keys"]["p256dh"] = "AAAA"
    response = post_device(client_for(host), data)
    assert response.status_code == 400 and "key is not valid" in response.json()["error"]
    assert not PushSubscription.objects.exists()


def test_removing_a_device(host):
    device = a_device(host)
    response = client_for(host).post(reverse("notifications:device_remove", args=[device.pk]))
    assert response.status_code == 302 and not PushSubscription.objects.exists()


def test_removing_someone_elses_device_is_refused_and_it_stays(host, friend):
    device = a_device(host)
    response = client_for(friend).post(
        reverse("notifications:device_remove", args=[device.pk]), headers={"HX-Request": "true"}
    )
    assert response.status_code == 404
    assert "There is no such device." in response.content.decode()
    assert PushSubscription.objects.filter(pk=device.pk).exists()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"address": "not-an-address", "digest": "1"}, "That is not an e-mail address."),
        ({"address": "", "digest": "1"}, "The digest needs an address to go to."),
    ],
)
def test_a_bad_address_is_refused_on_the_page_and_nothing_is_saved(host, data, message):
    response = client_for(host).post(MAIL, data)
    assert response.status_code == 400
    page = response.content.decode()
    assert message in page and 'role="alert"' in page
    assert not MailSettings.objects.exists() and not Notification.objects.exists()


def test_saving_an_address_says_a_confirmation_is_on_its_way(host):
    response = client_for(host).post(MAIL, {"address": "ann@example.com", "digest": "1"})
    assert response.status_code == 200
    assert "A confirmation link is on its way to ann@example.com" in response.content.decode()
    mail = MailSettings.objects.get(user=host)
    assert (mail.address, mail.digest, mail.confirmed_at) == ("ann@example.com", True, None)


def test_a_fourth_confirmation_in_a_day_is_refused_on_the_page(host):
    client = client_for(host)
    for n in range(services.CONFIRMATIONS_A_DAY):
        assert client.post(MAIL, {"address": f"a{n}@example.com"}).status_code == 200
    response = client.post(MAIL, {"address": "more@example.com"})
    assert response.status_code == 429 and "Too many confirmation mails" in response.content.decode()
    assert MailSettings.objects.get().address == "a2@example.com"


@pytest.mark.parametrize("name", ["confirm", "unsubscribe"])
def test_a_link_that_was_not_signed_by_us_is_refused(name):
    response = Client().post(reverse(f"notifications:{name}", args=["forged.token"]))
    assert response.status_code == 400
    assert "not valid" in response.content.decode()


def test_the_device_is_named_by_its_browser(host):
    browser = BrowserSubscription("https://push.example/1")
    agent = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
    post_device(client_for(host), browser.as_json(), **{"User-Agent": agent})
    assert PushSubscription.objects.get().label == "Firefox, Linux"
    assert "Firefox, Linux" in client_for(host).get(PREFERENCES).content.decode()


def test_a_refused_address_is_shown_as_typed_and_the_saved_one_stays(host):
    client = client_for(host)
    client.post(MAIL, {"address": "ann@example.com", "digest": "1"})
    response = client.post(MAIL, {"address": "ann@example"})
    page = response.content.decode()
    assert response.status_code == 400
    assert 'value="ann@example"' in page and "checked" not in page.split('name="digest"')[1].split(">")[0]
    assert MailSettings.objects.get().address == "ann@example.com"
