"""What a game socket may send, checked by type before anything acts on it.

A message is a JSON object of at most 4 KB: `{"action": NAME, ...fields}`. Numbers must be JSON
integers (not floats, not true/false, not NaN or Infinity); `box` is a box name. Anything else is a
BadMessage with a message for the page; nothing is applied."""

from __future__ import annotations

import json

from django.utils.translation import gettext as _

MAX_MESSAGE_BYTES = 4096
MAX_NUMBER = 2**31 - 1

# The fields each action needs (all integers but `box`).
ACTIONS: dict[str, tuple[str, ...]] = {
    "roll": ("turn", "roll"),
    "hold": ("turn", "roll", "die"),
    "choose": ("turn", "roll", "box"),
    "confirm": ("turn", "roll"),
    "hurry": (),
    "take_back": (),
    "sync": (),
    "ping": (),
}


class BadMessage(Exception):
    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


class _NotAnInteger(Exception):
    pass


def _no_floats(text: str):
    raise _NotAnInteger(text)


def parse(text: str | None, data: bytes | None = None) -> dict:
    """The message as a dict of checked fields (`action` and what it needs)."""
    if data is not None or text is None:
        raise BadMessage(_("Messages are text of at most 4 KB."), status=413)
    if len(text) > MAX_MESSAGE_BYTES or len(text.encode()) > MAX_MESSAGE_BYTES:
        raise BadMessage(_("Messages are text of at most 4 KB."), status=413)
    try:
        message = json.loads(text, parse_float=_no_floats, parse_constant=_no_floats)
    except _NotAnInteger:
        raise BadMessage(_("Numbers in a message must be whole numbers.")) from None
    except ValueError:  # not JSON (also: an integer of thousands of digits)
        raise BadMessage(_("That message was not valid JSON.")) from None
    if not isinstance(message, dict):
        raise BadMessage(_("That message was not valid JSON."))
    name = message.get("action")
    if not isinstance(name, str) or name not in ACTIONS:
        shown = name[:40] if isinstance(name, str) else type(name).__name__
        raise BadMessage(_("Unknown action: %(name)s.") % {"name": shown})
    checked: dict = {"action": name}
    for field in ACTIONS[name]:
        value = message.get(field)
        if field == "box":
            if not isinstance(value, str) or not 0 < len(value) <= 20:
                raise BadMessage(_("That action is missing a field or has a malformed one."))
        elif (
            isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_NUMBER
        ):  # True is an int in Python, not in this protocol
            raise BadMessage(_("That action is missing a field or has a malformed one."))
        checked[field] = value
    return checked
