"""The rules of Penta: boxes, scoring, the upper bonus, the Penta bonus and the forced joker.

Pure and immutable, with no Django imports: the turn flow, the strategy, the views and the tests all
ask this module what is legal and what it scores. RULES.md (shared/rules) is the normative text.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from enum import Enum
from types import MappingProxyType

UPPER_BONUS = 35
UPPER_BONUS_THRESHOLD = 63
PENTA_SCORE = 50
PENTA_BONUS = 100
FULL_HOUSE_SCORE = 25
SMALL_STRAIGHT_SCORE = 30
LARGE_STRAIGHT_SCORE = 40
DICE_COUNT = 5
FACES = range(1, 7)


class Box(Enum):
    """The thirteen boxes, in sheet order; the value is the box's index (bit position)."""

    ONES = 0
    TWOS = 1
    THREES = 2
    FOURS = 3
    FIVES = 4
    SIXES = 5
    THREE_OF_A_KIND = 6
    FOUR_OF_A_KIND = 7
    FULL_HOUSE = 8
    SMALL_STRAIGHT = 9
    LARGE_STRAIGHT = 10
    CHANCE = 11
    PENTA = 12

    # Plain attributes of each member, not properties: the sheet asks them for every box of every
    # total, and an enum's property (through its `value` descriptor) costs ten times a plain read.
    is_upper: bool
    face: int | None  # the face an upper box counts (Ones -> 1); None for lower boxes

    def __init__(self, index: int):
        self.is_upper = index < 6
        self.face = index + 1 if index < 6 else None

    # A member is its own identity (Enum compares by identity): hashed as such, in C, instead of by
    # Enum's hash of its name in Python, which every dict keyed by boxes paid on every lookup.
    __hash__ = object.__hash__

    @classmethod
    def upper(cls, face: int) -> Box:
        return cls(face - 1)


UPPER_BOXES = tuple(b for b in Box if b.is_upper)
LOWER_BOXES = tuple(b for b in Box if not b.is_upper)
# The lower boxes a joker may take when its upper box is filled (the Penta box is full by definition).
JOKER_LOWER_BOXES = tuple(b for b in LOWER_BOXES if b is not Box.PENTA)


class IllegalPlacement(ValueError):
    """The dice cannot be written in that box (filled, forbidden by the forced joker, or bad dice)."""


class InvalidDice(IllegalPlacement):
    """Not five dice with values 1 to 6."""


def validate_dice(dice: Iterable[int]) -> tuple[int, ...]:
    """Return the dice as a tuple, or raise InvalidDice."""
    try:
        values = tuple(dice)
    except TypeError:
        raise InvalidDice(f"dice must be a sequence of five values, not {dice!r}") from None
    if len(values) != DICE_COUNT:
        raise InvalidDice(f"five dice are needed, got {len(values)}")
    for v in values:
        # bool is an int subclass; True is not a die face.
        if type(v) is not int or not 1 <= v <= 6:
            raise InvalidDice(f"a die shows 1 to 6, not {v!r}")
    return values


def is_penta(dice: Iterable[int]) -> bool:
    values = validate_dice(dice)
    return len(set(values)) == 1


def _has_run(faces: set[int], length: int) -> bool:
    return any(all(f + i in faces for i in range(length)) for f in range(1, 8 - length))


def ordinary_score(box: Box, dice: Iterable[int]) -> int:
    """What the dice score in a box by the ordinary table (no joker)."""
    values = validate_dice(dice)
    counts = Counter(values)
    most = max(counts.values())
    if box.is_upper:
        return box.face * counts[box.face]
    if box is Box.THREE_OF_A_KIND:
        return sum(values) if most >= 3 else 0
    if box is Box.FOUR_OF_A_KIND:
        return sum(values) if most >= 4 else 0
    if box is Box.FULL_HOUSE:
        return FULL_HOUSE_SCORE if sorted(counts.values()) == [2, 3] else 0
    if box is Box.SMALL_STRAIGHT:
        return SMALL_STRAIGHT_SCORE if _has_run(set(values), 4) else 0
    if box is Box.LARGE_STRAIGHT:
        return LARGE_STRAIGHT_SCORE if _has_run(set(values), 5) else 0
    if box is Box.CHANCE:
        return sum(values)
    return PENTA_SCORE if most == 5 else 0


def joker_score(box: Box, face: int) -> int:
    """What a Penta of `face` scores in a lower box when played as a joker."""
    if box is Box.FULL_HOUSE:
        return FULL_HOUSE_SCORE
    if box is Box.SMALL_STRAIGHT:
        return SMALL_STRAIGHT_SCORE
    if box is Box.LARGE_STRAIGHT:
        return LARGE_STRAIGHT_SCORE
    return 5 * face


def _valid_points(box: Box, points: object) -> bool:
    if type(points) is not int or points < 0:
        return False
    if box.is_upper:
        return points % box.face == 0 and points <= 5 * box.face
    if box is Box.PENTA:
        return points in (0, PENTA_SCORE)
    if box is Box.FULL_HOUSE:
        return points in (0, FULL_HOUSE_SCORE)
    if box is Box.SMALL_STRAIGHT:
        return points in (0, SMALL_STRAIGHT_SCORE)
    if box is Box.LARGE_STRAIGHT:
        return points in (0, LARGE_STRAIGHT_SCORE)
    return points == 0 or 5 <= points <= 30


class Scoresheet:
    """One player's sheet: the filled boxes and the Penta bonuses. Immutable; `place` returns a new one."""

    __slots__ = ("_boxes", "_lower_total", "_penta_bonus", "_upper_total")

    def __init__(self, boxes: Mapping[Box, int] | None = None, penta_bonus: int = 0):
        boxes = dict(boxes or {})
        for box, points in boxes.items():
            if not isinstance(box, Box):
                raise ValueError(f"not a box: {box!r}")
            if not _valid_points(box, points):
                raise ValueError(f"{box.name} cannot hold {points!r}")
        if type(penta_bonus) is not int or penta_bonus < 0 or penta_bonus % PENTA_BONUS:
            raise ValueError(f"the Penta bonus is a multiple of {PENTA_BONUS}, not {penta_bonus!r}")
        if penta_bonus and boxes.get(Box.PENTA) != PENTA_SCORE:
            raise ValueError("a Penta bonus needs 50 in the Penta box")
        ordered = {box: boxes[box] for box in Box if box in boxes}
        object.__setattr__(self, "_boxes", MappingProxyType(ordered))
        object.__setattr__(self, "_penta_bonus", penta_bonus)
        # Immutable: the totals are worked out once (a screen reads them for every seat and row).
        object.__setattr__(self, "_upper_total", sum(p for b, p in ordered.items() if b.is_upper))
        object.__setattr__(self, "_lower_total", sum(p for b, p in ordered.items() if not b.is_upper))

    def __setattr__(self, name, value):
        raise AttributeError("Scoresheet is immutable")

    # -- reading ---------------------------------------------------------------------------------

    @property
    def boxes(self) -> Mapping[Box, int]:
        """The filled boxes in sheet order -> their points (read-only)."""
        return self._boxes

    @property
    def penta_bonus(self) -> int:
        return self._penta_bonus

    @property
    def open_boxes(self) -> tuple[Box, ...]:
        return tuple(b for b in Box if b not in self._boxes)

    @property
    def upper_total(self) -> int:
        return self._upper_total

    @property
    def upper_bonus(self) -> int:
        return UPPER_BONUS if self.upper_total >= UPPER_BONUS_THRESHOLD else 0

    @property
    def lower_total(self) -> int:
        return self._lower_total

    @property
    def total(self) -> int:
        return self.upper_total + self.upper_bonus + self.lower_total + self.penta_bonus

    @property
    def is_complete(self) -> bool:
        return len(self._boxes) == len(Box)

    @property
    def penta_box_full(self) -> bool:
        """True while the Penta box holds 50: the Penta bonus and the forced joker apply."""
        return self._boxes.get(Box.PENTA) == PENTA_SCORE

    def is_joker(self, dice: Iterable[int]) -> bool:
        """Whether these dice are a Penta that earns the bonus and is placed by the forced joker."""
        return self.penta_box_full and is_penta(dice)

    # -- the rules -------------------------------------------------------------------------------

    def options(self, dice: Iterable[int]) -> dict[Box, int]:
        """Every box these dice may legally go in -> the points written there (bonus not included)."""
        values = validate_dice(dice)
        open_boxes = self.open_boxes
        if not self.is_joker(values):
            return {box: ordinary_score(box, values) for box in open_boxes}
        face = values[0]
        own = Box.upper(face)
        if own in open_boxes:
            return {own: 5 * face}
        lower = [b for b in JOKER_LOWER_BOXES if b in open_boxes]
        if lower:
            return {box: joker_score(box, face) for box in lower}
        return {box: 0 for box in open_boxes}

    def bonus_for(self, dice: Iterable[int]) -> int:
        """The Penta bonus that writing these dice earns (100 or 0), whichever box takes them."""
        return PENTA_BONUS if self.is_joker(dice) else 0

    def must_sacrifice(self, dice: Iterable[int]) -> bool:
        """True when no legal open box scores more than 0."""
        options = self.options(dice)
        return bool(options) and not any(options.values())

    def place(self, box: Box, dice: Iterable[int]) -> Scoresheet:
        """The sheet after writing the dice in `box`; raises IllegalPlacement."""
        values = validate_dice(dice)
        if not isinstance(box, Box):
            raise IllegalPlacement(f"not a box: {box!r}")
        if box in self._boxes:
            raise IllegalPlacement(f"{box.name} is already filled")
        options = self.options(values)
        if box not in options:
            raise IllegalPlacement(f"the forced joker does not allow {box.name} for {values}")
        boxes = dict(self._boxes)
        boxes[box] = options[box]
        return Scoresheet(boxes, self._penta_bonus + self.bonus_for(values))

    # -- serialisation ---------------------------------------------------------------------------

    def to_dict(self) -> dict:
        """A JSON-ready form: {"boxes": {"FOURS": 20, ...}, "penta_bonus": 0}."""
        return {"boxes": {b.name: p for b, p in self._boxes.items()}, "penta_bonus": self._penta_bonus}

    @classmethod
    def from_dict(cls, data: Mapping) -> Scoresheet:
        try:
            boxes = {Box[name]: points for name, points in dict(data.get("boxes", {})).items()}
        except KeyError as exc:
            raise ValueError(f"unknown box {exc.args[0]!r}") from None
        return cls(boxes, data.get("penta_bonus", 0))

    # -- value semantics -------------------------------------------------------------------------

    def __eq__(self, other):
        if not isinstance(other, Scoresheet):
            return NotImplemented
        return dict(self._boxes) == dict(other._boxes) and self._penta_bonus == other._penta_bonus

    def __hash__(self):
        return hash((frozenset(self._boxes.items()), self._penta_bonus))

    def __repr__(self):
        inner = ", ".join(f"Box.{b.name}: {p}" for b, p in self._boxes.items())
        return f"Scoresheet(boxes={{{inner}}}, penta_bonus={self._penta_bonus})"
