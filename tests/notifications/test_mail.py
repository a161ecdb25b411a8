"""E-mail for real: the confirmation and the daily digest go through Django's SMTP backend to an SMTP
server inside the test, and their links are followed with the test client as the reader (or their mail
program) would."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from dicegame.models import Turn
from dicegame.rules import days
from notifications import services
from notifications.models import MailSettings, Notification
from tests.support.games import started_two_player_game
from tests.support.notifications import (
    ADDRESS,
    confirmed_mail,
    csrf_token_of,
    link_in,
    site_path,
    token_of,
)
from tests.support.servers import free_port
from tests.support.smtp import mailers_for

pytestmark = pytest.mark.django_db

DAY = 24 * 3600


def waiting_game(host, friend, *, waited: timedelta):
    """A correspondence game (a day a move) whose first turn, the host's, started `waited` ago."""
    game = started_two_player_game(host, friend, turn_seconds=0, move_seconds=DAY)
    turn = Turn.objects.get(game=game, completed_at__isnull=True)
    Turn.objects.filter(pk=turn.pk).update(
        started_at=turn.started_at - waited, deadline_at=turn.deadline_at - waited
    )
    return game


def a_confirmation_left_for_a_later_try(host) -> Notification:
    """The address set and a sweep that could not send its confirmation: it waits for the next try."""
    services.mail_address_set(user=host, address=ADDRESS, digest=True, language="en")
    now = timezone.now()

    assert services.send_due(now=now) == 0

    notification = Notification.objects.get(user=host, kind=Notification.Kind.CONFIRM)
    assert notification.state == Notification.State.PENDING
    assert notification.attempts == 1
    assert notification.due_at > now
    return notification


def test_the_confirmation_mail_links_to_a_page_whose_button_confirms_the_address(smtp, host):
    services.mail_address_set(user=host, address=ADDRESS, digest=True, language="en")
    assert Notification.objects.filter(user=host, kind=Notification.Kind.CONFIRM, address=ADDRESS).exists()

    assert services.send_due() == 1

    [mail] = smtp.mails
    assert mail.rcpt_tos == [ADDRESS]
    assert mail.mail_from == "penta@localhost"
    assert mail.message["To"] == ADDRESS
    assert mail.message["Subject"] == "Penta: confirm your address"
    link = link_in(mail.text, "confirm")
    assert link in mail.html
    path = site_path(link)
    assert path.startswith("/notifications/mail/confirm/")

    # Anyone who has the mail, logged in or not; a mail program that opens the link ahead of its
    # reader (a GET) confirms nothing.
    reader = Client(enforce_csrf_checks=True)
    page = reader.get(path)
    assert page.status_code == 200
    assert b'data-action="confirm"' in page.content
    assert MailSettings.objects.get(user=host).confirmed_at is None

    token = token_of(path)
    tampered = token[:-1] + ("A" if token[-1] != "A" else "B")
    refused = reader.post(
        reverse("notifications:confirm", args=[tampered]), {"csrfmiddlewaretoken": csrf_token_of(page.text)}
    )
    assert refused.status_code == 400
    assert MailSettings.objects.get(user=host).confirmed_at is None

    done = reader.post(path, {"csrfmiddlewaretoken": csrf_token_of(page.text)})
    assert done.status_code == 200
    assert b"data-confirmed" in done.content
    mail_settings = MailSettings.objects.get(user=host)
    assert mail_settings.confirmed_at is not None
    assert mail_settings.sends_digest


def test_the_digest_lists_the_waiting_game_once_a_day_and_unsubscribes_without_a_login(smtp, host, friend):
    confirmed_mail(host)
    game = waiting_game(host, friend, waited=timedelta(hours=2))
    # One clock for the whole day, a minute apart, never across Amsterdam's midnight.
    now = timezone.now()
    later = min(now + timedelta(minutes=1), days.day_end(days.today(now)) - timedelta(seconds=1))

    services.queue_digests(now=now)
    services.send_due(now=now)

    [mail] = smtp.mails
    assert mail.rcpt_tos == [ADDRESS]
    assert mail.message["Subject"] == "Penta: a game waits for your move"
    game_url = settings.PENTA_SITE_URL.rstrip("/") + reverse("dicegame:game", args=[game.pk])
    assert f"Against femke (21\xa0hours left): {game_url}" in mail.text
    assert f'href="{game_url}"' in mail.html
    unsubscribe = link_in(mail.text, "unsubscribe")
    assert mail.message["List-Unsubscribe"] == f"<{unsubscribe}>"
    assert mail.message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"

    services.queue_digests(now=later)
    services.send_due(now=later)
    assert len(smtp.mails) == 1

    # The reader follows the link (no login): a page with a button, and nothing stopped before it.
    reader = Client()
    page = reader.get(site_path(unsubscribe))
    assert page.status_code == 200
    assert b'data-action="unsubscribe"' in page.content
    assert MailSettings.objects.get(user=host).digest is True
    done = reader.post(site_path(unsubscribe), {"csrfmiddlewaretoken": csrf_token_of(page.text)})
    assert done.status_code == 200
    assert b"data-unsubscribed" in done.content
    assert MailSettings.objects.get(user=host).digest is False

    # RFC 8058: the mail program POSTs to the header's link, with no page and no CSRF token.
    MailSettings.objects.filter(user=host).update(digest=True)
    one_click = Client(enforce_csrf_checks=True).post(
        site_path(unsubscribe),
        "List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )
    assert one_click.status_code == 200
    assert MailSettings.objects.get(user=host).digest is False


def test_the_unsubscribe_headers_go_out_as_mail_programs_read_them(smtp, host, friend):
    confirmed_mail(host)
    waiting_game(host, friend, waited=timedelta(hours=2))

    services.queue_digests()
    services.send_due()

    # Not Python's decoded view: the bytes on the wire, as Gmail or Apple Mail look for the link.
    [mail] = smtp.mails
    unsubscribe = link_in(mail.text, "unsubscribe")
    assert mail.raw_header("List-Unsubscribe-Post") == "List-Unsubscribe=One-Click"
    assert mail.raw_header("List-Unsubscribe") == f"<{unsubscribe}>"


def test_the_next_day_brings_the_next_digest(smtp, host, friend):
    confirmed_mail(host)
    waiting_game(host, friend, waited=timedelta(hours=2))
    now = timezone.now()

    services.queue_digests(now=now)
    services.send_due(now=now)
    tomorrow = now + timedelta(days=1)
    services.queue_digests(now=tomorrow)
    services.send_due(now=tomorrow)

    assert len(smtp.mails) == 2
    assert Notification.objects.filter(user=host, kind=Notification.Kind.DIGEST).count() == 2


def test_a_game_that_waited_less_than_an_hour_brings_no_digest(smtp, host, friend):
    confirmed_mail(host)
    waiting_game(host, friend, waited=timedelta(minutes=30))

    services.queue_digests()
    services.send_due()

    assert smtp.mails == []
    assert not Notification.objects.filter(kind=Notification.Kind.DIGEST).exists()


def test_an_address_the_mail_server_refuses_is_not_tried_again(smtp, host):
    smtp.keeper.refused.add(ADDRESS)
    services.mail_address_set(user=host, address=ADDRESS, digest=True, language="en")

    assert services.send_due() == 0

    notification = Notification.objects.get(user=host, kind=Notification.Kind.CONFIRM)
    assert notification.state == Notification.State.FAILED
    assert "550" in notification.error
    # Retrying would only knock on the same closed door.
    assert services.send_due(now=timezone.now() + timedelta(days=1)) == 0
    assert smtp.mails == []


def test_a_busy_mail_server_gets_the_mail_on_the_next_try(smtp, host):
    smtp.keeper.busy = 1

    notification = a_confirmation_left_for_a_later_try(host)

    assert smtp.mails == []

    assert services.send_due(now=notification.due_at) == 1

    notification.refresh_from_db()
    assert notification.state == Notification.State.SENT
    [mail] = smtp.mails
    assert "/notifications/mail/confirm/" in mail.text


def test_a_mail_server_that_is_down_leaves_the_mail_for_a_later_try(settings, host):
    settings.MAILERS = mailers_for(free_port())  # nothing listens there

    notification = a_confirmation_left_for_a_later_try(host)

    assert notification.claimed_until is None
    assert notification.error
