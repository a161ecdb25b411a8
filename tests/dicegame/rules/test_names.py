"""What a typed name may hold (`dicegame.rules.names`): bidirectional controls and invisible characters
are dropped, white space is one space, and a name needs a character one can see."""

from __future__ import annotations

import pytest

from dicegame.rules.names import clean_name, has_control, is_visible


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        ("  Friday   dice\t night ", "Friday dice night"),
        ("Fri\u202eecid yad", "Friecid yad"),  # a right-to-left override turned "day dice" around
        ("\u2066ann\u2069 wins", "ann wins"),  # isolates
        ("a\u200bb\u2060c\ufeff", "abc"),
        ("\u200e\u200f\u061cx", "x"),
        ("Vrijdag\u00a0dobbelen", "Vrijdag dobbelen"),
        ("👨\u200d👩\u200d👧 night", "👨\u200d👩\u200d👧 night"),  # the zero-width joiner of an emoji stays
        (
            "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
            "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
        ),
    ],
)
def test_a_name_is_kept_without_bidi_controls_or_invisible_characters(raw, kept):
    assert clean_name(raw) == kept
    assert is_visible(clean_name(raw))


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "   ",
        "\u200b\u200c\u200d",
        "\u2060\ufeff",
        "\u202a\u202b\u202c\u202d\u202e",
        "\u2066\u2067\u2068\u2069",
        "\u00a0\u3000\u2028",
        "\u200d \u200c",
        "\u0301\u0301",  # combining marks with nothing under them
        "\x07\x1b",
        "\u00ad",  # a soft hyphen alone
    ],
)
def test_a_name_of_nothing_visible_is_not_a_name(raw):
    assert not is_visible(clean_name(raw))


def test_control_characters_are_told_apart_from_white_space():
    assert has_control("a\x00b") and has_control("\x1b[31mred") and has_control("x\x7f")
    assert not has_control("a b\tc\nd") and not has_control("Friday dice")
