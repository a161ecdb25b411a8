"""Puzzles made from people's mistakes in finished games, their sources, ratings and attempts.

A puzzle is a position (sheet, dice, rolls left) stored once however many games reached it
(`key`); each game's turn that reached it with a large loss is a `PuzzleSource`. Puzzles and people
have Glicko-2 ratings (`ratings.glicko2`); a person's first attempt at a puzzle (`Attempt`, one per
puzzle and person) moves both, later attempts are practice. An attempt is rated only if the puzzle's
answer was never shown to that account nor in that browser (`PuzzleReveal`)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from dicegame.models import Game, Player
from dicegame.rules.scoring import Scoresheet
from puzzles.positions import Option

INITIAL_RD = 350.0
INITIAL_VOLATILITY = 0.06


class Puzzle(models.Model):
    key = models.CharField(
        max_length=120, unique=True, help_text="the position: puzzles.positions.position_key"
    )
    boxes = models.JSONField(default=dict, help_text='the sheet before the move: {"FOURS": 12, ...}')
    penta_bonus = models.PositiveIntegerField(default=0)
    dice = models.JSONField(help_text="five faces, sorted")
    rolls_left = models.PositiveSmallIntegerField()
    # The best choices (best first) with their expected final totals, as puzzles.positions.Option.to_json.
    choices = models.JSONField()
    best_value = models.FloatField()
    margin = models.FloatField(help_text="expected points of the best choice over the second best")
    theme_upper = models.BooleanField(default=False)
    theme_straights = models.BooleanField(default=False)
    theme_penta = models.BooleanField(default=False)
    theme_endgame = models.BooleanField(default=False)
    rating = models.FloatField(db_index=True)
    rd = models.FloatField(default=INITIAL_RD)
    volatility = models.FloatField(default=INITIAL_VOLATILITY)
    attempts = models.PositiveIntegerField(default=0, help_text="rated (first) attempts")
    solved = models.PositiveIntegerField(default=0, help_text="rated attempts that found the best choice")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]

    def __str__(self):
        return f"Puzzle {self.pk}"

    @property
    def sheet(self) -> Scoresheet:
        return Scoresheet.from_dict({"boxes": self.boxes, "penta_bonus": self.penta_bonus})

    @property
    def best(self) -> Option:
        return Option.from_json(self.choices[0])

    @property
    def themes(self) -> list[str]:
        return [t for t in ("upper", "straights", "penta", "endgame") if getattr(self, f"theme_{t}")]


class PuzzleSource(models.Model):
    """Where a puzzle came from: a person's turn in a finished game and what they chose there. Shown
    only to that person ("In your game of ... you kept ..."): nobody else learns whose it was."""

    puzzle = models.ForeignKey(Puzzle, on_delete=models.CASCADE, related_name="sources")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    # The seat, not the user: a guest's game that later moves into an account, or a local game's
    # column a friend confirms, makes the puzzle theirs too.
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    turn_number = models.PositiveSmallIntegerField()
    rolls_left = models.PositiveSmallIntegerField()
    chosen = models.JSONField(help_text="the person's choice, as puzzles.positions.Option.to_json")
    loss = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "turn_number", "rolls_left"], name="one_source_per_position"
            )
        ]

    def __str__(self):
        return f"Source of puzzle {self.puzzle_id}: game {self.game_id}, turn {self.turn_number}"


class PuzzleRating(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="puzzle_rating"
    )
    rating = models.FloatField(default=1500.0)
    rd = models.FloatField(default=INITIAL_RD)
    volatility = models.FloatField(default=INITIAL_VOLATILITY)
    attempts = models.PositiveIntegerField(default=0)
    solved = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"Puzzle rating of {self.user}"


class Attempt(models.Model):
    """A person's first (rated) attempt at a puzzle: at most one per puzzle and person, so the ratings
    move once even when two submissions race (the second one's insert fails and it is practice)."""

    puzzle = models.ForeignKey(Puzzle, on_delete=models.CASCADE, related_name="rated_attempts")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="puzzle_attempts"
    )
    choice = models.JSONField()
    correct = models.BooleanField()
    rating_before = models.FloatField()
    rating_after = models.FloatField()
    puzzle_rating_before = models.FloatField()
    puzzle_rating_after = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["puzzle", "user"], name="one_rated_attempt")]

    def __str__(self):
        return f"{self.user} on puzzle {self.puzzle_id}"


class PuzzleReveal(models.Model):
    """That a puzzle's answer was shown: in a browser (`device`, the puzzles' own cookie) or to an
    account (`user`), one row each, so an attempt after it cannot be rated. Kept per browser as well as
    per account because the attack is seeing the answer as a guest, or from one account, and then
    answering from another account in the same browser.

    A row is one or the other, never both: an account seen on two browsers, or a browser used by
    two accounts, would otherwise need two rows that each unique constraint forbids."""

    puzzle = models.ForeignKey(Puzzle, on_delete=models.CASCADE, related_name="reveals")
    device = models.CharField(max_length=64, blank=True, default="")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="puzzle_reveals",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["puzzle", "device"], condition=~Q(device=""), name="one_reveal_per_device"
            ),
            models.UniqueConstraint(
                fields=["puzzle", "user"], condition=Q(user__isnull=False), name="one_reveal_per_user"
            ),
            models.CheckConstraint(
                condition=(~Q(device="") & Q(user__isnull=True)) | (Q(device="") & Q(user__isnull=False)),
                name="reveal_to_a_device_or_a_user",
            ),
        ]

    def __str__(self):
        to = f"device {self.device[:6]}…" if self.device else f"user {self.user_id}"
        return f"Puzzle {self.puzzle_id} shown to {to}"


# Why an attempt is practice (`services.Answer.practice_reason`, `selectors.practice_reason`); the
# puzzle page's template compares against these values.
TRIED = "tried"  # the account's rated attempt is made
SHOWN_TO_ACCOUNT = "account"  # the answer was shown to this account (in practice, from another browser)
SHOWN_IN_BROWSER = "browser"  # the answer was shown in this browser, as a guest or to another account


class DailyPuzzle(models.Model):
    """The puzzle of a Europe/Amsterdam day, the same for everyone: chosen once, on the day's first
    visit, and kept even if the pool grows during the day."""

    date = models.DateField(unique=True)
    puzzle = models.ForeignKey(Puzzle, on_delete=models.CASCADE, related_name="+")

    def __str__(self):
        return f"Puzzle of {self.date}"


THEME_LABELS = {
    "upper": _("Upper bonus chase"),
    "straights": _("Straights"),
    "penta": _("Penta chase"),
    "endgame": _("Endgame"),
}
