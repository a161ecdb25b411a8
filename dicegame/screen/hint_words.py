"""The hints in plain words: the optimal strategy's best move as one sentence ("Keep the two 4s and
the 5", "Write 25 in Full house", "Roll all five again"), and which dice of the tray to keep.

The exact figures stay in the hints tables (`dicegame.screen.view.game_hints`); this module only words the
best of them, in the active language."""

from __future__ import annotations

from collections import Counter

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from dicegame.labels import box_label
from dicegame.rules.scoring import Box


def _count_word(count: int) -> str:
    return {2: _("two"), 3: _("three"), 4: _("four"), 5: _("five")}.get(count, str(count))


def _join(parts: list[str]) -> str:
    if len(parts) == 1:
        return parts[0]
    return _("%(list)s and %(last)s") % {"list": ", ".join(parts[:-1]), "last": parts[-1]}


def dice_words(keep: tuple[int, ...]) -> str:
    """The dice to keep, grouped by face: (4, 4, 5) -> "the two 4s and the 5"."""
    counts = Counter(keep)
    parts = [
        ngettext("the %(face)s", "the %(count)s %(face)ss", n) % {"face": face, "count": _count_word(n)}
        for face, n in sorted(counts.items())
    ]
    return _join(parts)


def keep_sentence(keep: tuple[int, ...]) -> str:
    """What to do before the next roll (`keep` holds fewer than five dice)."""
    if not keep:
        return _("Roll all five again")
    return _("Keep %(dice)s") % {"dice": dice_words(keep)}


def box_sentence(box: Box, points: int, *, stop_rolling: bool = False) -> str:
    """Where to write the dice: "Write 25 in Full house" (after stopping early, says so)."""
    if stop_rolling:
        return _("Keep all five: write %(points)s in %(box)s") % {"points": points, "box": box_label(box)}
    return _("Write %(points)s in %(box)s") % {"points": points, "box": box_label(box)}


def keep_positions(
    dice: tuple[int, ...], keep: tuple[int, ...], held: tuple[bool, ...] | None = None
) -> tuple[bool, ...]:
    """Which dice of the tray to keep so that the kept dice are exactly `keep`: dice already held
    first, so the advice disturbs as little as possible of what the player has done."""
    wanted = Counter(keep)
    chosen = [False] * len(dice)
    for i in sorted(range(len(dice)), key=lambda i: not (held and held[i])):
        if wanted[dice[i]] > 0:
            chosen[i] = True
            wanted[dice[i]] -= 1
    return tuple(chosen)
