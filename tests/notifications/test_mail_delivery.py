"""E-mail, the cases test_mail.py leaves out: the address set on the page (CSRF enforced) and its
confirmation in the person's language, links for an address no longer in use or past their time, the
daily limit's next day, the digest's day in Amsterdam, several games and Dutch in the digest, digests
queued and then no longer wanted, and a mail server stopped and started again. The mails go through
Django's SMTP backend to an aiosmtpd server in the test."""

from __future__ import annotations

import datetime as dt
import time
from zoneinfo import ZoneInfo

import pytest
from django.core import signing
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext, ngettext

from dicegame import play
from notifications import services
from notifications.models import MailSettings, Notification
from tests.support.clock import Clock
from tests.support.factories import UserFactory, actor, befriend, client_for
from tests.support.games import play_turn, started_two_player_game
from tests.support.notifications import (
    ADDRESS,
    SITE,
    confirmed_mail,
    csrf_token_of,
    link_in,
    site_path,
    token_of,
)

pytestmark = pytest.mark.django_db

DAY = 24 * 3600
AMSTERDAM = ZoneInfo("Europe/Amsterdam")
CONFIRM, DIGEST = Notification.Kind.CONFIRM, Notification.Kind.DIGEST
PENDING, SENT, SKIPPED, FAILED = (
    Notification.State.PENDING,
    Notification.State.SENT,
    Notification.State.SKIPPED,
    Notification.State.FAILED,
)


@pytest.fixture
def clock(monkeypatch):
    return Clock(monkeypatch, timezone.now().replace(microsecond=0))


def ask_for(user, address: str = ADDRESS, language: str = "en") -> None:
    services.mail_address_set(user=user, address=address, digest=True, language=language)


def digests() -> list[Notification]:
    return list(Notification.objects.filter(kind=DIGEST).order_by("day"))


def next_amsterdam(hour: int, minute: int = 0) -> dt.datetime:
    """The next moment after the real now that clocks in Amsterdam show hour:minute."""
    now = dt.datetime.now(AMSTERDAM)
    at = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    return at if at > now else (at + dt.timedelta(days=1)).replace(hour=hour, minute=minute)


# -- the address and its confirmation ----------------------------------------------------------------------


def test_an_address_set_on_the_page_is_confirmed_by_a_mail_in_the_persons_language(smtp, host):
    client = client_for(host, language="nl", enforce_csrf_checks=True)
    url = reverse("notifications:mail")
    # Without the page's CSRF token the form is refused: nothing kept, nothing queued.
    assert client.post(url, {"address": ADDRESS, "digest": "1"}).status_code == 403
    assert not MailSettings.objects.exists() and not Notification.objects.exists()
    page = client.get(reverse("notifications:preferences")).content.decode()

    response = client.post(
        url, {"address": ADDRESS, "digest": "1", "csrfmiddlewaretoken": csrf_token_of(page)}
    )

    assert response.status_code == 200 and "data-saved" in response.content.decode()
    mail = MailSettings.objects.get(user=host)
    assert (mail.address, mail.digest, mail.confirmed_at, mail.language) == (ADDRESS, True, None, "nl")
    assert smtp.mails == []  # off the request path: the sweep sends it
    assert services.send_due() == 1
    [sent] = smtp.mails
    message = sent.message
    assert message["From"] == "Penta <penta@localhost>" and message["To"] == ADDRESS
    assert [part.get_content_type() for part in message.iter_parts()] == ["text/plain", "text/html"]
    with translation.override("nl"):
        subject, hello = gettext("Penta: confirm your address"), gettext("Hello,")
    assert subject != "Penta: confirm your address"  # locale/nl has it
    assert message["Subject"] == subject
    # Not by the asker's name: the address is not known to be theirs yet (tests/notifications/test_mail_caps).
    assert sent.text.startswith(hello) and hello in sent.html
    confirm = link_in(sent.text, "confirm")
    assert f'href="{confirm}"' in sent.html

    # The reader's browser, not logged in: the page's button confirms.
    reader = Client(enforce_csrf_checks=True)
    page = reader.get(site_path(confirm)).content.decode()
    assert MailSettings.objects.get(user=host).confirmed_at is None
    assert reader.post(site_path(confirm), {"csrfmiddlewaretoken": csrf_token_of(page)}).status_code == 200
    assert MailSettings.objects.get(user=host).sends_digest


def test_the_link_for_an_address_no_longer_in_use_confirms_nothing(smtp, host):
    ask_for(host, "old@example.com")
    services.send_due()
    old = site_path(link_in(smtp.mails[-1].text, "confirm"))
    ask_for(host, ADDRESS)
    services.send_due()
    new = site_path(link_in(smtp.mails[-1].text, "confirm"))
    assert smtp.mails[-1].rcpt_tos == [ADDRESS]

    response = Client().post(old)

    assert response.status_code == 400
    mail = MailSettings.objects.get(user=host)
    assert (mail.address, mail.confirmed_at) == (ADDRESS, None)
    assert Client().post(new).status_code == 200
    assert MailSettings.objects.get(user=host).confirmed_at is not None


def test_a_confirmation_for_an_address_changed_before_the_sweep_is_not_sent(smtp, host):
    ask_for(host, "old@example.com")
    ask_for(host, ADDRESS)

    assert services.send_due() == 1

    assert [m.rcpt_tos for m in smtp.mails] == [[ADDRESS]]
    assert Notification.objects.get(address="old@example.com").state == SKIPPED


def test_a_link_past_its_three_days_or_signed_for_something_else_confirms_nothing(smtp, host):
    ask_for(host)
    services.send_due()
    url = link_in(smtp.mails[0].text, "confirm")
    value = signing.loads(token_of(url), salt=services.CONFIRM_SALT)

    class FourDaysAgo(signing.TimestampSigner):
        def timestamp(self):
            return signing.b62_encode(int(time.time()) - 4 * DAY)

    expired = FourDaysAgo(salt=services.CONFIRM_SALT).sign_object(value)
    unsubscribe = token_of(link_in(smtp.mails[0].message["List-Unsubscribe"], "unsubscribe"))
    for bad in (expired, unsubscribe, signing.dumps(value, salt="another.salt")):
        assert Client().post(reverse("notifications:confirm", args=[bad])).status_code == 400, bad
    # A confirmation link is no unsubscribe link either.
    assert Client().post(reverse("notifications:unsubscribe", args=[token_of(url)])).status_code == 400
    assert MailSettings.objects.get(user=host).confirmed_at is None
    assert Client().post(site_path(url)).status_code == 200  # the genuine one works


def test_the_confirmations_refused_today_are_allowed_the_next_day(smtp, host, clock):
    client = client_for(host)
    url = reverse("notifications:mail")
    for n in range(services.CONFIRMATIONS_A_DAY):
        assert client.post(url, {"address": f"hana{n}@example.com", "digest": "1"}).status_code == 200
    assert client.post(url, {"address": ADDRESS, "digest": "1"}).status_code == 429

    clock.advance(hours=23, minutes=59)
    assert client.post(url, {"address": ADDRESS, "digest": "1"}).status_code == 429
    clock.advance(minutes=2)
    assert client.post(url, {"address": ADDRESS, "digest": "1"}).status_code == 200

    assert Notification.objects.filter(kind=CONFIRM).count() == services.CONFIRMATIONS_A_DAY + 1
    services.send_due(clock.now)
    # The earlier ones were for addresses replaced since: only the latest goes.
    assert [m.rcpt_tos for m in smtp.mails] == [[ADDRESS]]


def test_saving_an_unconfirmed_address_again_promises_no_mail_that_never_comes(smtp, host):
    client = client_for(host)
    url = reverse("notifications:mail")
    smtp.keeper.refused.add(ADDRESS)  # the first confirmation does not get through (a full mailbox)
    client.post(url, {"address": ADDRESS, "digest": "1"})
    services.send_due()
    assert Notification.objects.get(kind=CONFIRM).state == FAILED
    smtp.keeper.refused.discard(ADDRESS)

    response = client.post(url, {"address": ADDRESS, "digest": "1"})  # the person asks again
    services.send_due()

    # Either a new link is sent, or the page does not say one is.
    promised = "A confirmation link is on its way" in response.content.decode()
    delivered = [m.rcpt_tos for m in smtp.mails] == [[ADDRESS]]
    assert (promised, delivered) in {(True, True), (False, False)}, (promised, delivered)


# -- the daily digest ---------------------------------------------------------------------------------------


@pytest.fixture
def waiting(host, friend, clock):
    """Two correspondence games (a day a move) begun at 09:00 in Amsterdam, both waiting for hana's move:
    against femke and against mila."""
    clock.set(next_amsterdam(9).astimezone(dt.UTC))
    mila = UserFactory(username="mila")
    befriend(host, mila)
    return [
        started_two_player_game(host, other, turn_seconds=0, move_seconds=DAY) for other in (friend, mila)
    ]


def test_the_digest_lists_every_waiting_game(smtp, host, waiting, clock):
    confirmed_mail(host)

    services.queue_digests(clock.advance(hours=3))
    services.send_due(clock.now)

    [sent] = smtp.mails
    assert sent.message["Subject"] == "Penta: 2 games wait for your move"
    for game, opponent in zip(waiting, ["femke", "mila"], strict=True):
        url = f"{SITE}/games/{game.pk}/"
        assert f"- Against {opponent} (21\xa0hours left): {url}" in sent.text
        assert f'<a href="{url}">Against {opponent}</a> (21\xa0hours left)' in sent.html
    [digest] = digests()
    assert (digest.state, digest.day) == (SENT, clock.now.astimezone(AMSTERDAM).date())


def test_the_digest_is_in_the_persons_language(smtp, host, waiting, clock):
    confirmed_mail(host, language="nl")

    services.queue_digests(clock.advance(hours=3))
    services.send_due(clock.now)

    [sent] = smtp.mails
    with translation.override("nl"):
        subject = ngettext("Penta: a game waits for your move", "Penta: %(n)d games wait for your move", 2)
        subject %= {"n": 2}
        heading = gettext("These games of Penta wait for your move:")
    assert subject != "Penta: 2 games wait for your move"
    assert sent.message["Subject"] == subject
    assert heading in sent.text and heading in sent.html
    assert "21\xa0uur" in sent.text  # the time left, in Dutch too


def test_the_digests_day_is_the_day_in_amsterdam(smtp, host, friend, clock):
    confirmed_mail(host)
    evening = next_amsterdam(23, 30).astimezone(dt.UTC)  # the sweep's clock is in UTC
    clock.set(evening - dt.timedelta(hours=2))
    started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
    after_midnight = evening + dt.timedelta(hours=1)  # 00:30 in Amsterdam, the same day in UTC
    assert after_midnight.date() == evening.date()

    services.queue_digests(evening)
    services.queue_digests(evening + dt.timedelta(minutes=29))
    services.queue_digests(after_midnight)

    amsterdam_days = [evening.astimezone(AMSTERDAM).date(), after_midnight.astimezone(AMSTERDAM).date()]
    assert [d.day for d in digests()] == amsterdam_days
    services.send_due(after_midnight)
    assert len(smtp.mails) == 2


@pytest.mark.parametrize("why", ["digest off", "not their move", "against the computer"])
def test_no_digest_without_a_game_against_friends_waiting_for_a_person_who_wants_it(
    smtp, host, friend, clock, why
):
    confirmed_mail(host, digest=why != "digest off")
    if why == "against the computer":
        play.game_create_vs_computer(actor=actor(host), strengths=["easy"])
    else:
        game = started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
        if why == "not their move":
            play_turn(game, host)  # femke's move now

    services.queue_digests(clock.advance(hours=3))
    services.send_due(clock.now)

    assert digests() == []
    assert smtp.mails == []


@pytest.mark.parametrize("meanwhile", ["unsubscribed", "moved in every game"])
def test_a_digest_queued_but_no_longer_wanted_is_not_sent(smtp, host, waiting, clock, meanwhile):
    confirmed_mail(host)
    services.queue_digests(clock.advance(hours=3))
    if meanwhile == "unsubscribed":
        MailSettings.objects.filter(user=host).update(digest=False)
    else:
        for game in waiting:
            play_turn(game, host)

    services.send_due(clock.now)

    [digest] = digests()
    assert digest.state == SKIPPED
    assert smtp.mails == []


# -- a mail server that is away ----------------------------------------------------------------------------


def test_a_mail_server_that_is_stopped_gets_the_mail_once_it_is_back(smtp, host):
    ask_for(host)
    smtp.stop()
    now = timezone.now()

    assert services.send_due(now) == 0

    queued = Notification.objects.get(kind=CONFIRM)
    assert (queued.state, queued.attempts) == (PENDING, 1)
    assert queued.due_at == now + dt.timedelta(seconds=services.RETRY_SECONDS[0])
    assert "ConnectionRefusedError" in queued.error
    smtp.start()
    assert services.send_due(queued.due_at - dt.timedelta(seconds=1)) == 0
    assert smtp.mails == []

    assert services.send_due(queued.due_at) == 1

    [sent] = smtp.mails
    assert sent.rcpt_tos == [ADDRESS]
    queued.refresh_from_db()
    assert (queued.state, queued.attempts) == (SENT, 1)
