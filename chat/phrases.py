"""The quick phrases and reactions: sent as keys, shown in the reader's language."""

from django.utils.translation import gettext_lazy as _

PHRASES = {
    "hi": _("Hi!"),
    "gl": _("Good luck!"),
    "hf": _("Have fun!"),
    "nice": _("Nice Penta!"),
    "wow": _("Wow!"),
    "yourmove": _("Your move!"),
    "gg": _("Good game!"),
    "wp": _("Well played!"),
    "ty": _("Thanks!"),
    "bye": _("Bye!"),
}

# Which phrases suit the moment.
MOMENTS = {
    "start": ("hi", "gl", "hf"),
    "play": ("nice", "wow", "yourmove"),
    "end": ("gg", "wp", "ty", "bye"),
}

REACTIONS = {
    "dice": "🎲",
    "clap": "👏",
    "wow": "😮",
    "phew": "😅",
    "fire": "🔥",
}


def shown(kind: str, text: str) -> str:
    """A line as the reader sees it (in the active language)."""
    if kind == "phrase":
        return str(PHRASES.get(text, ""))
    if kind == "reaction":
        return REACTIONS.get(text, "")
    return text
