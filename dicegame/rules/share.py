"""The share line of a game on shared dice (the daily challenge, a tournament round): one symbol per box,
in the sheet's order, saying how well it was scored without the dice or the points (no spoilers): well,
scored, zero (or never written: an abandoned game). Pure (no Django)."""

from __future__ import annotations

from dicegame.rules.scoring import UPPER_BOXES, Box

SHARE_WELL, SHARE_SCORED, SHARE_ZERO = "\U0001f7e9", "\U0001f7e8", "\u2b1b"
WELL_AT = 24  # Three/Four of a kind and Chance: 24 of their 30 at most


def share_symbols(boxes: dict) -> str:
    """One symbol a box in sheet order: an upper box is well scored at three of its face (the bonus's
    pace), a sum box (of a kind, Chance) at WELL_AT, a fixed-score box whenever it scores."""
    out = []
    for box in Box:
        points = boxes.get(box.name) or 0
        if not points:
            out.append(SHARE_ZERO)
        elif box in UPPER_BOXES:
            out.append(SHARE_WELL if points >= 3 * box.face else SHARE_SCORED)
        elif box in (Box.THREE_OF_A_KIND, Box.FOUR_OF_A_KIND, Box.CHANCE):
            out.append(SHARE_WELL if points >= WELL_AT else SHARE_SCORED)
        else:
            out.append(SHARE_WELL)
    return "".join(out)
