"""Issue 38, finding 8: an address of 255-320 characters (Django's validator takes 320, the column holds
254) answered 500 on PostgreSQL (DataError) and was stored whole on SQLite. It is a 400 with its message
wherever an address is typed, and nothing is stored."""

import itertools

import pytest
from django.core.validators import validate_email

from dicegame.errors import GameActionError
from feedback.models import Report
from notifications import services
from notifications.models import MailSettings, Notification
from tests.support.factories import UserFactory, client_for

pytestmark = pytest.mark.django_db

MAIL = "/notifications/mail/"
TOO_LONG = "That address is too long"
_numbers = itertools.count()


def address_of(length: int) -> str:
    """A valid address (by Django's validator) of exactly `length` characters."""
    local, labels = "a" * 64, []
    rest = length - len(local) - len("@") - len(".com")
    while rest > 0:
        labels.append("b" * min(63, rest))
        rest -= len(labels[-1]) + 1
    address = f"{local}@{'.'.join(labels)}.com"
    assert len(address) == length
    validate_email(address)
    return address


def newcomer():
    return UserFactory(username=f"reader{next(_numbers)}")


def ask(user, address: str):
    return client_for(user).post(MAIL, {"address": address, "digest": "1"})


def test_the_longest_address_the_column_holds_is_taken():
    user = newcomer()
    mail = services.mail_address_set(user=user, address=address_of(254), digest=True, language="en")
    assert len(MailSettings.objects.get(pk=mail.pk).address) == 254


@pytest.mark.parametrize("length", [255, 300, 320])
def test_a_longer_address_is_refused_by_the_service_and_nothing_is_stored(length):
    user = newcomer()
    with pytest.raises(GameActionError, match=TOO_LONG) as exc:
        services.mail_address_set(user=user, address=address_of(length), digest=True, language="en")
    assert exc.value.status == 400
    assert "at most 254 characters" in exc.value.message
    assert not MailSettings.objects.exists() and not Notification.objects.exists()


@pytest.mark.parametrize("length", [255, 320])
def test_a_longer_address_is_a_400_on_the_page_and_the_saved_one_stays(length):
    """The whole request: on PostgreSQL this was a 500 (DataError), on SQLite the address was stored."""
    user = newcomer()
    assert ask(user, "ann@example.com").status_code == 200
    response = ask(user, address_of(length))
    page = response.content.decode()
    assert response.status_code == 400
    assert TOO_LONG in page and 'role="alert"' in page
    assert MailSettings.objects.get(user=user).address == "ann@example.com"
    assert Notification.objects.filter(user=user).count() == 1


def test_the_feedback_form_refuses_a_longer_address_too(client):
    """The other place an address is typed (a guest's report): a form error, nothing stored."""
    response = client.post("/report/", {"message": "the dice stick", "email": address_of(300)})
    assert response.status_code == 400
    assert "Ensure this value has at most 254 characters" in response.content.decode()
    assert not Report.objects.exists()


def test_the_refusal_in_dutch():
    response = client_for(newcomer(), language="nl").post(MAIL, {"address": address_of(300)})
    assert response.status_code == 400
    assert "Dat adres is te lang: een e-mailadres heeft hoogstens 254 tekens." in response.content.decode()
