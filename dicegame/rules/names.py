"""What a name that people type and others read may hold (a tournament's name, a person's column of a
game on one device), and what a message must have to be read at all (a problem report).

A name is shown to other people, in lists and tables: it needs something to read, and must not hide or
reorder the text around it. Pure (no Django): the callers word their refusals."""

from __future__ import annotations

import unicodedata

# The bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) and the direction
# marks (LRM, RLM, ALM): they reorder what follows them, so a name could read as another one or turn the
# text after it around (a player name, a score). Dropped from a name, wherever they are.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
# Invisible characters with no part in writing a name: the zero-width space, the word joiner and the
# invisible operators, the zero-width no-break space (byte order mark), the Mongolian vowel separator.
# Dropped. The zero-width joiner and non-joiner stay (emoji sequences and some scripts need them), but
# alone they are nothing to read.
INVISIBLE = frozenset("\u200b\u2060\u2061\u2062\u2063\u2064\ufeff\u180e")


def clean_name(raw: str) -> str:
    """The name as kept: bidirectional controls and invisible characters dropped, every run of spaces
    (any Unicode white space, tabs and line breaks too) made one space, none at either end."""
    kept = "".join(ch for ch in raw if ch not in BIDI_CONTROLS and ch not in INVISIBLE)
    return " ".join(kept.split())


def has_control(text: str) -> bool:
    """Whether the text holds a control character (Unicode category Cc) that is not white space:
    NUL, escape, delete and the like, which no name needs."""
    return any(unicodedata.category(ch) == "Cc" and not ch.isspace() for ch in text)


def is_visible(text: str) -> bool:
    """Whether the text has at least one character one can see: a letter, a digit, a punctuation mark
    or a symbol (not only spaces, combining marks, format or control characters)."""
    return any(unicodedata.category(ch)[0] in "LNPS" for ch in text)
