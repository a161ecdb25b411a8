"""The Dutch says one word for one thing (issue 22, item 13), in the catalogue every screen reads:

- a hint is a "tip" ("tips gebruikt"), never "hint";
- a box of the sheet is a "vakje" ("vakjes"), never "vak" or "vakken";
- a plural of a die's face written as a digit takes an apostrophe and the spoken ending, as the Woordenlijst
  writes numerals (Leidraad, regel 6.J: "drie 6'en"): "de twee 4'en", "vijf %(face)s'en"; never the
  English "4s" nor "4's".
"""

from __future__ import annotations

import re

import pytest

from tests.support import ROOT

CATALOGUE = ROOT / "locale" / "nl" / "LC_MESSAGES" / "django.po"


def translations() -> list[tuple[str, str]]:
    """(msgid, msgstr) of every entry, a plural's forms each on their own (with the msgid and its
    plural joined by " | "); obsolete entries left out."""
    entries: list[tuple[str, str]] = []
    current = None
    strings: dict[str, str] = {}

    def flush() -> None:
        msgid = " | ".join(filter(None, (strings.get("msgid"), strings.get("msgid_plural"))))
        entries.extend((msgid, v) for k, v in strings.items() if k.startswith("msgstr"))

    for line in CATALOGUE.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            continue
        match = re.match(r'^(msgctxt|msgid|msgid_plural|msgstr(?:\[\d\])?) "(.*)"$', line)
        if match:
            key, text = match.groups()
            if key in ("msgctxt", "msgid") and any(k.startswith("msgstr") for k in strings):
                flush()
                strings = {}
            strings[key] = text
            current = key
        elif line.startswith('"') and current:
            strings[current] += line[1:-1]
    flush()
    return [e for e in entries if e[0]]  # (the header's entry has an empty msgid)


FORBIDDEN = {
    "hint (a hint is a tip)": re.compile(r"\bhints?\b", re.IGNORECASE),
    "vak (a box is a vakje)": re.compile(r"\bvak\b", re.IGNORECASE),
    "vakken (boxes are vakjes)": re.compile(r"\bvakken\b", re.IGNORECASE),
    "a face's plural in English (4s, %(face)ss)": re.compile(r"(?:\b\d|%\(face\)s)s\b"),
    "a face's plural as 4's": re.compile(r"(?:\b\d|%\(face\)s)'s\b"),
}


def test_the_catalogue_is_read():
    entries = translations()
    assert len(entries) > 800
    assert ("Hints", "Tips") in entries and ("Box", "Vakje") in entries


@pytest.mark.parametrize("word", FORBIDDEN)
def test_one_dutch_word_for_one_thing(word):
    found = [(msgid, msgstr) for msgid, msgstr in translations() if FORBIDDEN[word].search(msgstr)]
    assert found == [], f"{word}: {found}"


def test_a_faces_plural_is_written_with_apostrophe_en():
    faces = [(msgid, msgstr) for msgid, msgstr in translations() if "%(face)s" in msgstr]
    # "the two 4s", "Penta! Five 4s.", "... rolled a Penta: five 4s!"
    assert sum("%(face)s'en" in msgstr for _msgid, msgstr in faces) >= 3
    # A face followed by anything but the plural's 'en, or the end of the word, is some other plural.
    assert [f for f in faces if re.search(r"%\(face\)s(?!'en\b)[\w']", f[1])] == []
