"""A forgotten password: the reset by e-mail (Django's views and tokens), through a real SMTP server.

The page tells nothing about which addresses have accounts: the same answer, in about the same time, for
a known and an unknown address (the request only counts and queues; the clock's mail sweep looks the
address up). The link works once, for its own account only, and the new password logs out every other
session. Throttled per address and per client. Sign-up may offer the address "forgot password" needs."""

from __future__ import annotations

import re
import statistics
import time

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import LoginSession
from notifications import services as mail_services
from notifications.models import MailSettings, Notification
from tests.support.factories import PASSWORD, UserFactory, client_for
from tests.support.notifications import SITE, confirmed_mail

pytestmark = pytest.mark.django_db

FORGOT = "/accounts/password/forgot/"
NEW = "brand-new-password-42"


def ask(client: Client, address: str):
    return client.post(FORGOT, {"email": address})


def reset_link(mail) -> str:
    [url] = set(re.findall(rf"{re.escape(SITE)}(/accounts/password/reset/[^\s\"<>]+/)", mail.text))
    return url


def choose_password(client: Client, path: str, password: str = NEW):
    """Open the link (Django moves the token into the session) and set the password."""
    page = client.get(path)
    assert page.status_code == 302, page.status_code
    form_url = page["Location"]
    return client.post(form_url, {"new_password1": password, "new_password2": password})


def test_the_answer_is_the_same_for_a_known_and_an_unknown_address():
    confirmed_mail(UserFactory(username="hana"), address="hana@example.com")
    known, unknown = ask(Client(), "hana@example.com"), ask(Client(), "nobody@example.com")
    assert known.status_code == unknown.status_code == 302
    assert known["Location"] == unknown["Location"] == reverse("accounts:password_reset_done")
    # What the request stored is the same, one row each, whose it is left for the sweep to find out.
    rows = list(Notification.objects.filter(kind=Notification.Kind.RESET).values("user_id", "address"))
    assert rows == [
        {"user_id": None, "address": "hana@example.com"},
        {"user_id": None, "address": "nobody@example.com"},
    ]
    page = Client().get(reverse("accounts:password_reset_done")).content.decode()
    assert "If that address is confirmed for an account" in page


def test_the_answer_takes_about_the_same_time_for_a_known_and_an_unknown_address(settings):
    settings.PENTA_RESETS_PER_RECIPIENT = settings.PENTA_RESETS_PER_CLIENT = 10_000
    for i in range(20):
        confirmed_mail(UserFactory(username=f"known{i}"), address=f"known{i}@example.com")
    client = Client()
    ask(client, "warm-up@example.com")  # the first request pays for loading what every request uses

    def timed(address: str) -> float:
        start = time.perf_counter()
        assert ask(client, address).status_code == 302
        return time.perf_counter() - start

    known, unknown = [], []
    for i in range(20):  # interleaved: the machine's load falls on both alike
        known.append(timed(f"known{i}@example.com"))
        unknown.append(timed(f"unknown{i}@example.com"))
    # The lower quartiles: the request's own cost, without what other work on the machine adds at
    # random (in the whole suite a live server of another test sweeps the same database meanwhile).
    low_known, low_unknown = statistics.quantiles(known, n=4)[0], statistics.quantiles(unknown, n=4)[0]
    assert 0.67 < low_known / low_unknown < 1.5, (low_known, low_unknown)


def test_the_mail_goes_to_a_confirmed_address_in_the_persons_language_and_the_link_works_once(smtp):
    hana = UserFactory(username="hana")
    confirmed_mail(hana, address="hana@example.com", language="nl")
    ask(Client(), "HANA@example.com")  # any case
    ask(Client(), "nobody@example.com")
    assert mail_services.send_due() == 1  # the unknown address: nothing sent, nothing said
    [mail] = smtp.mails
    assert mail.rcpt_tos == ["hana@example.com"]
    assert mail.message["Subject"] == "Penta: een nieuw wachtwoord"
    assert "hana" in mail.text
    path = reset_link(mail)

    browser = Client()
    assert choose_password(browser, path).status_code == 302
    hana.refresh_from_db()
    assert hana.check_password(NEW)
    assert browser.get(reverse("accounts:preferences")).status_code == 200  # logged in
    # Once: the link is spent with the password it was made from.
    again = Client().get(path)
    assert again.status_code == 400 and "data-invalid-link" in again.content.decode()
    hana.refresh_from_db()
    assert hana.check_password(NEW)


def test_no_mail_for_an_unconfirmed_address_or_a_closed_account(smtp):
    MailSettings.objects.create(user=UserFactory(username="ann"), address="ann@example.com")
    gone = UserFactory(username="gone", is_active=False)
    confirmed_mail(gone, address="gone@example.com")
    for address in ("ann@example.com", "gone@example.com"):
        ask(Client(), address)
    assert mail_services.send_due() == 0
    assert smtp.mails == []


def test_a_reset_link_never_acts_on_another_account(smtp):
    hana, femke = UserFactory(username="hana"), UserFactory(username="femke")
    confirmed_mail(hana, address="hana@example.com")
    ask(Client(), "hana@example.com")
    mail_services.send_due()
    path = reset_link(smtp.mails[0])
    uid, token = path.rstrip("/").split("/")[-2:]
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    femke_uid = urlsafe_base64_encode(force_bytes(femke.pk))
    forged = f"/accounts/password/reset/{femke_uid}/{token}/"
    response = Client().get(forged)
    assert response.status_code == 400
    femke.refresh_from_db()
    assert femke.check_password(PASSWORD)


def test_the_new_password_logs_out_every_other_session(smtp):
    hana = UserFactory(username="hana")
    confirmed_mail(hana, address="hana@example.com")
    elsewhere = client_for(hana)
    assert elsewhere.get(reverse("accounts:preferences")).status_code == 200
    ask(Client(), "hana@example.com")
    mail_services.send_due()
    choose_password(Client(), reset_link(smtp.mails[0]))
    assert elsewhere.get(reverse("accounts:preferences")).status_code == 302  # to the login page
    assert LoginSession.objects.filter(user=hana).count() == 1  # the new one


def test_resets_are_throttled_per_address_and_per_client(settings):
    settings.PENTA_RESETS_PER_RECIPIENT, settings.PENTA_RESETS_PER_CLIENT = 2, 4
    for _n in range(2):
        assert ask(Client(REMOTE_ADDR="10.0.0.1"), "hana@example.com").status_code == 302
    refused = ask(Client(REMOTE_ADDR="10.0.0.2"), "HANA+x@example.com")  # one mailbox, any spelling
    assert refused.status_code == 429 and "Too many password resets" in refused.content.decode()
    client = Client(REMOTE_ADDR="10.0.0.3")
    assert [ask(client, f"p{i}@example.com").status_code for i in range(5)] == [302] * 4 + [429]
    assert Notification.objects.filter(kind=Notification.Kind.RESET).count() == 6


def test_bad_input_is_a_400_with_the_reason_and_nothing_queued():
    for bad in ({"email": "not an address"}, {}, {"email": "x" * 250 + "@example.com"}):
        response = Client().post(FORGOT, bad)
        assert response.status_code == 400
        assert 'role="alert"' in response.content.decode()
    assert not Notification.objects.exists()


def test_the_page_says_a_confirmed_address_is_needed():
    page = Client().get(FORGOT).content.decode()
    assert "data-needs-address" in page and "Only a confirmed address can reset a password" in page
    assert 'href="/accounts/password/forgot/"' in Client().get("/accounts/login/").content.decode()


def test_sign_up_may_offer_an_address_which_gets_its_confirmation():
    client = Client()
    response = client.post(
        "/accounts/signup/",
        {"username": "newbie", "password1": NEW, "password2": NEW, "email": "newbie@example.com"},
    )
    assert response.status_code == 302
    mail = MailSettings.objects.get(user__username="newbie")
    assert mail.address == "newbie@example.com" and mail.confirmed_at is None and not mail.digest
    assert Notification.objects.filter(kind=Notification.Kind.CONFIRM, user=mail.user).count() == 1
    # Without one it works too; a bad one is a 400 and makes no account.
    assert (
        Client()
        .post("/accounts/signup/", {"username": "plain", "password1": NEW, "password2": NEW})
        .status_code
        == 302
    )
    bad = Client().post(
        "/accounts/signup/", {"username": "badmail", "password1": NEW, "password2": NEW, "email": "nope"}
    )
    assert bad.status_code == 400
    assert not MailSettings.objects.filter(user__username="plain").exists()
    from django.contrib.auth import get_user_model

    assert not get_user_model().objects.filter(username="badmail").exists()
    assert timezone.now()  # (the confirmation itself is tested in tests/notifications)
