"""What every view shares: the game page's address, a posted whole number, and a refusal shown outside
any game screen (for htmx, in the page's message area)."""

from __future__ import annotations

import re
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _

from dicegame.errors import GameActionError


def game_url(game_id: int, token: str = "") -> str:
    """The game page's address; with the invitation link's token for a viewer who came with it."""
    url = reverse("dicegame:game", args=[game_id])
    return f"{url}?{urlencode({'t': token})}" if token else url


INT_FIELD_RE = re.compile(r"-?[0-9]{1,10}")
INT_FIELD_LIMIT = 2**31 - 1  # far beyond any turn, roll, seat count or timer; within every integer column


def int_field(request: HttpRequest, name: str, default: int | None = None) -> int:
    """A whole number from the posted form, or a 400 refusal that says which field was wrong. Only ASCII
    digits, within +-(2**31-1): a number beyond 64 bits would reach the database (a 500)."""
    raw = request.POST.get(name, "")
    if raw == "" and default is not None:
        return default
    if INT_FIELD_RE.fullmatch(raw) and abs(number := int(raw)) <= INT_FIELD_LIMIT:
        return number
    raise GameActionError(
        _("The request was malformed (%(field)s is missing or not a number): reload the page.")
        % {"field": name},
        status=400,
    )


def message_response(request: HttpRequest, message: str, *, status: int) -> HttpResponse:
    """A refusal outside any game screen: the message area alone for htmx, else a small page."""
    template = "dicegame/message.html#messages" if request.htmx else "dicegame/message.html"
    return TemplateResponse(request, template, {"error": message, "oob": True}, status=status)
