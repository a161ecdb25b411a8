"""Issue 38, finding 11: eight new accounts sent 24 confirmation mails to one outside address in 4 s,
each greeting it by a name the sender chose. Besides a person's 3 a day, at most 3 a day go to one
recipient address (whoever asks) and 10 a day are asked for from one client address, counted in one
atomic step (a burst cannot pass), refused with 429 and a message, changing nothing; and the mail names
nobody."""

import itertools

import pytest
from django.test import override_settings

import penta.settings
from dicegame.errors import GameActionError
from notifications import services
from notifications.models import MailSettings, Notification
from tests.support.factories import UserFactory, client_for
from tests.support.games import race

pytestmark = pytest.mark.django_db

MAIL = "/notifications/mail/"
VICTIM = "victim@outside.example"
TO_THIS_ADDRESS = "Too many confirmation mails have gone to this address today"
FROM_YOUR_ADDRESS = "Too many confirmation mails were asked for from your address today"
_numbers = itertools.count()


def newcomer(**kwargs):
    return UserFactory(username=kwargs.pop("username", f"newcomer{next(_numbers)}"), **kwargs)


def ask(user, address: str, *, client: str = "10.8.8.8"):
    return client_for(user, REMOTE_ADDR=client).post(MAIL, {"address": address, "digest": "1"})


def confirmations_to(address: str) -> int:
    return Notification.objects.filter(kind=Notification.Kind.CONFIRM, address=address).count()


def test_the_production_caps_are_three_a_recipient_and_ten_a_client():
    assert penta.settings.PENTA_CONFIRMATIONS_PER_RECIPIENT == 3
    assert penta.settings.PENTA_CONFIRMATIONS_PER_CLIENT == 10


def test_eight_new_accounts_send_one_address_three_mails_at_most():
    people = [newcomer() for _ in range(8)]
    statuses = [ask(person, VICTIM, client=f"10.9.0.{i}").status_code for i, person in enumerate(people)]
    assert statuses == [200] * 3 + [429] * 5
    assert confirmations_to(VICTIM) == 3

    refused = ask(newcomer(), VICTIM, client="10.9.1.1")
    assert refused.status_code == 429 and TO_THIS_ADDRESS in refused.content.decode()
    # Nothing changed for the refused: no address kept, no mail queued.
    assert not MailSettings.objects.filter(user__in=people[3:], address=VICTIM).exists()
    assert confirmations_to(VICTIM) == 3


def test_one_mailbox_however_it_is_written():
    spellings = ["Victim@Outside.example", "victim+1@outside.example", "VICTIM@outside.example"]
    for i, spelling in enumerate(spellings):
        assert ask(newcomer(), spelling, client=f"10.9.2.{i}").status_code == 200
    response = ask(newcomer(), "victim+penta@OUTSIDE.example", client="10.9.2.9")
    assert response.status_code == 429
    assert ask(newcomer(), "someone-else@outside.example", client="10.9.2.9").status_code == 200


def test_one_client_asks_for_ten_mails_a_day_at_most_and_another_is_not_held_up():
    for i in range(10):
        assert ask(newcomer(), f"friend{i}@outside.example", client="10.9.3.3").status_code == 200
    before = Notification.objects.count()
    refused = ask(newcomer(), "friend10@outside.example", client="10.9.3.3")
    assert refused.status_code == 429 and FROM_YOUR_ADDRESS in refused.content.decode()
    assert (
        Notification.objects.count() == before
        and not MailSettings.objects.filter(address="friend10@outside.example").exists()
    )
    assert ask(newcomer(), "friend10@outside.example", client="10.9.4.4").status_code == 200


def test_a_client_refused_does_not_use_up_the_recipients_count():
    with override_settings(PENTA_CONFIRMATIONS_PER_CLIENT=1):
        assert ask(newcomer(), "first@outside.example", client="10.9.5.5").status_code == 200
        assert ask(newcomer(), VICTIM, client="10.9.5.5").status_code == 429
    for i in range(3):
        assert ask(newcomer(), VICTIM, client=f"10.9.6.{i}").status_code == 200


def test_the_refusals_in_dutch():
    for i in range(3):
        ask(newcomer(), VICTIM, client=f"10.9.7.{i}")
    user = newcomer()
    response = client_for(user, language="nl", REMOTE_ADDR="10.9.7.9").post(MAIL, {"address": VICTIM})
    assert response.status_code == 429
    assert "Er zijn vandaag te veel bevestigingsmails naar dit adres gegaan" in response.content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_burst_at_once_cannot_pass_the_recipients_cap():
    people = iter([newcomer() for _ in range(8)])
    results = race(
        8, lambda: services.mail_address_set(user=next(people), address=VICTIM, digest=True, language="en")
    )
    refused = [r for r in results if isinstance(r, GameActionError)]
    assert len(refused) == 5 and all(r.status == 429 for r in refused), results
    assert confirmations_to(VICTIM) == 3
    assert MailSettings.objects.filter(address=VICTIM).count() == 3


def test_the_mail_names_nobody_the_asker_chose(smtp):
    asker = newcomer(username="Your-Bank_Security-Team")
    services.mail_address_set(user=asker, address=VICTIM, digest=True, language="en")
    assert services.send_due() == 1
    [mail] = smtp.mails
    assert mail.rcpt_tos == [VICTIM]
    for part in (mail.text, mail.html, str(mail.message["Subject"])):
        assert "Your-Bank" not in part and "Security-Team" not in part
    assert mail.text.startswith("Hello,")
    assert "Someone asked Penta to send the daily digest of their games to this address." in mail.text
