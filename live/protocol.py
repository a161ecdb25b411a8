"""What a game socket may send, checked by type before anything acts on it.

A message is a JSON object of at most 4 KB: `{"action": NAME, ...fields}`, the fields of the same action's
POST (docs/live-play.md). Numbers must be JSON integers (not floats, not true/false, not NaN or
Infinity); `box` is a box name; a line's `kind` and `text` are strings. An action may carry an `id` (the
page's count of its actions), which its answer echoes; a choice may carry `confirm_zero` and `write` (0 or
1: the zero's question answered yes). Anything else is a BadMessage with a message for the page; nothing is
applied."""

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
    # A line at the table (chat.services.line_post checks its words): its kind and its text or key.
    "say": ("kind", "text"),
}
# Fields that are text, each with its longest accepted length (the service refuses a line over its own).
TEXT_FIELDS = {"kind": 10, "text": 600}
# The fields an action may carry, each 0 or 1 (a form's checkbox as the POST sends it).
FLAGS: dict[str, tuple[str, ...]] = {"choose": ("confirm_zero", "write")}


class BadMessage(Exception):
    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status
        # The id of the action refused, when the message was an object with a well-formed one: its
        # answer echoes it.
        self.answer_id: int | None = None


class _NotAnInteger(Exception):
    pass


def _no_floats(text: str):
    raise _NotAnInteger(text)


def _integer(value) -> bool:
    # True is an int in Python, not in this protocol.
    return not isinstance(value, bool) and isinstance(value, int) and 0 <= value <= MAX_NUMBER


def parse(text: str | None, data: bytes | None = None) -> dict:
    """The message as a dict of checked fields (`action`, what it needs, and its `id` if it has one)."""
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
    answer_id = message.get("id")
    try:
        checked = _checked(message)
    except BadMessage as exc:
        exc.answer_id = answer_id if _integer(answer_id) else None
        raise
    if answer_id is not None:
        if not _integer(answer_id):
            raise BadMessage(_("That action is missing a field or has a malformed one."))
        checked["id"] = answer_id
    return checked


def _checked(message: dict) -> dict:
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
        elif field in TEXT_FIELDS:
            if not isinstance(value, str) or len(value) > TEXT_FIELDS[field]:
                raise BadMessage(_("That action is missing a field or has a malformed one."))
        elif not _integer(value):
            raise BadMessage(_("That action is missing a field or has a malformed one."))
        checked[field] = value
    for flag in FLAGS.get(name, ()):
        value = message.get(flag, 0)
        if value not in (0, 1) or isinstance(value, bool):
            raise BadMessage(_("That action is missing a field or has a malformed one."))
        checked[flag] = value
    return checked
