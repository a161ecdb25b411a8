"""A tournament's name is read by everyone who may see it: a name of nothing visible (blank, zero-width,
bidirectional controls, control characters) is refused with the form's message and makes nothing, and
bidirectional controls inside a name are dropped."""

from __future__ import annotations

import pytest

from tests.support.factories import UserFactory, client_for
from tournaments.models import Round, Tournament

pytestmark = pytest.mark.django_db

FORM = {"rounds": "2", "window": "3600", "max_entrants": "4", "access": "public"}


@pytest.mark.parametrize(
    "name",
    [
        "\u200b\u200b\u200b",
        "\u200c\u200d",
        "\u2060\ufeff",
        "\u202e\u202d\u202a",
        "\u2066\u2069\u2067\u2068",
        "\u00a0 \u3000",
        "\u202e \u200b \u2069",
        "\x07\x08",
    ],
)
def test_a_name_with_nothing_visible_is_refused_with_the_forms_message(name):
    client = client_for(UserFactory())
    response = client.post("/tournaments/new/", {"name": name, **FORM})
    page = response.content.decode()
    assert response.status_code == 400
    assert "data-form-error" in page and "at least one letter, digit or sign that can be seen" in page
    assert not Tournament.objects.exists() and not Round.objects.exists()


def test_a_name_with_control_characters_is_refused():
    client = client_for(UserFactory())
    response = client.post("/tournaments/new/", {"name": "Dice\x1b[2Jnight", **FORM})
    assert response.status_code == 400 and "cannot hold control characters" in response.content.decode()
    assert not Tournament.objects.exists()


def test_bidi_controls_inside_a_name_are_dropped():
    client = client_for(UserFactory())
    response = client.post("/tournaments/new/", {"name": "Dice \u202enight\u202c \u2066x\u2069", **FORM})
    assert response.status_code == 302
    t = Tournament.objects.get()
    assert t.name == "Dice night x"
    assert "Dice night x" in client.get(f"/tournaments/{t.pk}/").content.decode()


def test_the_refusal_is_in_dutch_for_a_dutch_reader():
    client = client_for(UserFactory(), language="nl")
    response = client.post("/tournaments/new/", {"name": "\u200b", **FORM})
    assert response.status_code == 400 and "zichtbare letter" in response.content.decode()
