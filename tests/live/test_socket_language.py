"""A socket speaks the language of the page that opened it: the same cookie and Accept-Language give the
same language to both (Django's public `get_language_from_request`, which the page's LocaleMiddleware
uses too)."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client

from live.consumers import scope_language

CASES = [
    # (language cookie, Accept-Language headers, the language)
    ("", [], "en"),
    ("nl", [], "nl"),
    ("", ["nl-NL,nl;q=0.9,en;q=0.8"], "nl"),
    ("", ["de, nl;q=0.5"], "nl"),
    ("", ["fr"], "en"),
    ("", ["*"], "en"),
    ("en", ["nl"], "en"),
    ("xx", ["nl"], "nl"),  # a cookie of no language of the site counts for nothing
    ("", ["fr", "nl"], "nl"),  # two headers are read as one list
]


def scope(cookie: str, accepted: list[str]) -> dict:
    return {
        "cookies": {settings.LANGUAGE_COOKIE_NAME: cookie} if cookie else {},
        "headers": [(b"accept-language", value.encode("latin-1")) for value in accepted],
    }


@pytest.mark.parametrize(("cookie", "accepted", "language"), CASES)
def test_the_socket_takes_the_cookie_else_accept_language_else_the_default(cookie, accepted, language):
    assert scope_language(scope(cookie, accepted)) == language


@pytest.mark.django_db
@pytest.mark.parametrize(("cookie", "accepted", "language"), CASES)
def test_the_page_and_its_socket_agree(cookie, accepted, language):
    client = Client()
    if cookie:
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = cookie
    headers = {"accept-language": ",".join(accepted)} if accepted else {}
    page = client.get("/", headers=headers)
    assert page.headers["Content-Language"] == language == scope_language(scope(cookie, accepted))
