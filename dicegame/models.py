"""Games, their seats (players) with their scoresheets, and the log of every turn.

The rules live in `dicegame.rules.scoring`; only `dicegame.play` writes these rows.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from dicegame.labels import bot_name, box_label, correspondence_rule, pace_label
from dicegame.rules import days
from dicegame.rules.scoring import Scoresheet
from dicegame.rules.turn import IDLE_END_SECONDS


class Game(models.Model):
    class Kind(models.TextChoices):
        SOLO = "solo", _("Solo")
        COMPUTER = "computer", _("Against the computer")
        FRIENDS = "friends", _("Against friends")
        # Pass and play: 2-4 people on one device, typed names, no accounts (dicegame.play.local).
        LOCAL = "local", _("On one device")

    class Pace(models.TextChoices):
        # Everyone at the table at once, with a turn timer of seconds (or none).
        LIVE = "live", _("Live")
        # Each on their own time: a move within `move_seconds` (hours to days), notified when it is theirs.
        CORRESPONDENCE = "correspondence", _("Correspondence")

    class Status(models.TextChoices):
        OPEN = "open", _("Waiting for players")
        ACTIVE = "active", _("In play")
        FINISHED = "finished", _("Finished")
        EXPIRED = "expired", _("Expired")
        CANCELLED = "cancelled", _("Cancelled")

    kind = models.CharField(max_length=16, choices=Kind, default=Kind.SOLO)
    status = models.CharField(max_length=16, choices=Status, default=Status.ACTIVE)
    # The dice seed stays secret until the game is finished; its SHA-256 is shown from the start.
    seed = models.CharField(max_length=64)
    seed_commitment = models.CharField(max_length=64)
    # Bumped by every change, so a client can tell whether it missed one.
    version = models.PositiveIntegerField(default=0)
    # Set once the optimal-play hints were shown to a player of this game (marked in history).
    hints_used = models.BooleanField(default=False)
    # A rated game between people moves their Glicko-2 ratings (`ratings`); the host chooses it for a
    # room, and hints are off in it.
    rated = models.BooleanField(default=False)
    # The daily challenge's game of this Europe/Amsterdam date (`daily`): a solo game whose dice come from
    # the day's seed, the same for everyone, so its dice namespace is the date instead of the game id.
    daily_date = models.DateField(null=True, blank=True, db_index=True)
    # Any other game on dice it shares with other games (a tournament round: every entrant plays the
    # round's seed): `dice_key` is the dice recipe's `{game}` part, the same for all of them ("t12-r3"),
    # and `shared_until` the end of their window. The game closes then as it stands (the boxes written
    # count), and its seed, which deals everyone's dice, is shown nowhere before (`seed_secret_until`).
    # (A database default too: code of the version before, during a rolling deploy, inserts games
    # without it.)
    dice_key = models.CharField(max_length=40, blank=True, default="", db_default="")
    shared_until = models.DateTimeField(null=True, blank=True)
    # Games against friends: the host, the number of seats, the turn timer and the invitation link.
    host = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="hosted_games",
    )
    seats_wanted = models.PositiveSmallIntegerField(default=1)
    turn_seconds = models.PositiveSmallIntegerField(null=True, blank=True, help_text="empty: no turn timer")
    # A game against friends is played live (the turn timer above) or by correspondence: then each move
    # has `move_seconds` (an hour to three days), and `moved_at` is when a person last acted, for the
    # rule that a game nobody moves in for CORRESPONDENCE_IDLE ends as it stands.
    pace = models.CharField(max_length=16, choices=Pace, default=Pace.LIVE)
    move_seconds = models.PositiveIntegerField(null=True, blank=True)
    moved_at = models.DateTimeField(null=True, blank=True)
    invite_token = models.CharField(max_length=43, blank=True, db_index=True)
    rematch_of = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rematch"
    )
    rematch_deadline = models.DateTimeField(null=True, blank=True)
    # The languages of the spectators' open screens (space-separated), kept by live.presence:
    # a change is rendered for spectators once per language in use, and not at all when nobody watches.
    spectator_languages = models.CharField(max_length=32, blank=True)
    # Some seat's player switched the winning chances on (kept by winprob.chances.switch_bar): read with
    # the game under its lock, so a move learns whether its position is worth working out without
    # asking anything else (it was a Redis read for every roll and confirm).
    win_bar_wanted = models.BooleanField(default=False)
    # The computer players move at the fast pace (kernel.bot_pace): a person's lasting choice, for the
    # games against the computer and on one device of theirs.
    fast_computer = models.BooleanField(default=False, db_default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    # What play leaves on a game object it has just changed, for the answer and the pushes built from
    # that object (never stored): the seats read under the lock, the turn in play, the turns this change
    # wrote (with whether each reached the upper bonus), the seat that has just left.
    seats = None
    turn_in_play = None
    written = ()
    left_seat = None

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["status", "-created_at"]),
            # The clock's sweep for games in play whose shared window has ended (the finished ones, which
            # pile up, are never read by it).
            models.Index(fields=["status", "shared_until"], name="game_status_shared_until"),
            # The clock's sweep for the games that finished lately, to analyse (analysis.services).
            models.Index(fields=["finished_at"], name="game_finished_at"),
        ]

    def __str__(self):
        return f"Game {self.pk} ({self.get_kind_display()}, {self.get_status_display()})"

    @property
    def is_finished(self) -> bool:
        return self.status == self.Status.FINISHED

    @property
    def rematch_yes_count(self) -> int:
        """How many players said yes to a rematch (a finished page shows the change when it moves)."""
        return self.players.filter(rematch_accepted=True).count()

    @property
    def kind_label(self) -> str:
        """What the game is, for lists and headers: its kind, or the daily challenge with its date."""
        if self.daily_date:
            return _("Daily challenge %(date)s") % {"date": self.daily_date.isoformat()}
        if self.dice_key:
            return _("Tournament round")
        return self.get_kind_display()

    @property
    def dice_namespace(self) -> int | str:
        """The `game` part of the dice recipe's message: the game id; for a game on shared dice the part
        all of them share (a daily challenge's date, ISO; a tournament round's key), so that each of
        their players gets the same face at the same (turn, roll, die) slot."""
        if self.dice_key:
            return self.dice_key
        return self.daily_date.isoformat() if self.daily_date else self.pk

    @property
    def on_shared_dice(self) -> bool:
        """Several players' games are dealt this game's dice (the daily challenge, a tournament round):
        no hints, assessed for fair play, the seed secret until the window ends."""
        return bool(self.dice_key) or self.daily_date is not None

    @property
    def shared_dice_until(self):
        """The end of the window of a game on shared dice (a daily game's day, a tournament round), when
        it closes as it stands and its seed may be shown; None for the others."""
        if self.shared_until is not None:
            return self.shared_until
        return days.day_end(self.daily_date) if self.daily_date else None

    @property
    def closes_at(self):
        """The moment the game ends as it stands, whatever its players do (the boxes written count): a
        game on shared dice at the end of its window (a daily game's day), when its seed becomes public;
        a correspondence game's IDLE_END_SECONDS after a person last moved; None for the others."""
        shared = self.shared_dice_until
        if shared is not None:
            return shared
        if self.pace == self.Pace.CORRESPONDENCE and self.moved_at is not None:
            return self.moved_at + timedelta(seconds=IDLE_END_SECONDS)
        return None

    @property
    def is_correspondence(self) -> bool:
        return self.pace == self.Pace.CORRESPONDENCE

    @property
    def pace_label(self) -> str:
        """ "Correspondence, a day a move", or the live game's turn timer, for lists and invitations."""
        return pace_label(
            move_seconds=self.move_seconds if self.is_correspondence else None, turn_seconds=self.turn_seconds
        )

    @property
    def pace_rule(self) -> str:
        return correspondence_rule() if self.is_correspondence else ""

    @property
    def seed_secret_until(self):
        """For a game on shared dice whose window has not ended (a daily game's day, a tournament round):
        the moment its seed may be shown (it deals everyone's dice); else None (an ordinary game's seed
        is secret only while it is played)."""
        until = self.shared_dice_until
        return until if until is not None and timezone.now() < until else None

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN

    @property
    def is_active(self) -> bool:
        return self.status == self.Status.ACTIVE

    @property
    def is_cancelled(self) -> bool:
        return self.status == self.Status.CANCELLED


class Player(models.Model):
    """A seat in a game: a user, a guest (by the key kept in their session) or a computer player.

    The seat's scoresheet is stored here: `boxes` maps Box names to points."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="players")
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="seats"
    )
    guest_key = models.CharField(max_length=64, blank=True, db_index=True)
    bot_strength = models.CharField(max_length=16, blank=True)
    name = models.CharField(max_length=150)
    boxes = models.JSONField(default=dict, blank=True)
    penta_bonus = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    # This seat's player has the hints panel switched on.
    hints = models.BooleanField(default=False)
    # The computer plays this seat while its player is away (two missed turns in a row).
    stand_in = models.BooleanField(default=False)
    missed_turns = models.PositiveSmallIntegerField(default=0)
    # The one live connection of this seat: a newer tab takes it over.
    channel_name = models.CharField(max_length=200, blank=True)
    connected = models.BooleanField(default=False)
    # The language of that screen: pushes to it are rendered in it.
    channel_language = models.CharField(max_length=8, blank=True)
    rematch_accepted = models.BooleanField(default=False)
    # Set when the person resigned (left the game for good): the computer plays the seat's remaining
    # turns so the table can finish, the seat can't be taken back, and the game counts as a loss for them.
    left_at = models.DateTimeField(null=True, blank=True)
    # A person's seat of a local game (pass and play) is played from its creator's device: the
    # creator (a user, or a guest by session key) acts for it; `user` stays empty unless a friend
    # later confirms the column as theirs (dicegame.play.local).
    controller = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    controller_guest_key = models.CharField(max_length=64, blank=True, db_index=True)
    # A seat kept for a person challenged to a correspondence game who has not accepted yet
    # (dicegame.offers.Challenge): no clock runs for it, the computer never plays it, and it is not yet
    # one of their games (nor their turn, nor one of their 50).
    challenged = models.BooleanField(default=False, db_default=False)
    # This seat's time to choose a box after the last roll, before the computer writes it (play.moves):
    # None the site's default (PENTA_AUTO_COMMIT_SECONDS), 0 none (off), else seconds. Its person's
    # setting, as far as the game allows (play.kernel.seat_auto_commit).
    auto_commit_seconds = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["game", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="unique_seat_per_game"),
            models.CheckConstraint(
                condition=~(models.Q(user__isnull=False) & ~models.Q(bot_strength="")),
                name="seat_is_user_or_bot",
            ),
        ]

    def __str__(self):
        return f"{self.name} (seat {self.seat + 1} of game {self.game_id})"

    @property
    def is_bot(self) -> bool:
        return bool(self.bot_strength)

    @property
    def display_name(self) -> str:
        """The seat's name for the viewer: a computer player's name is made at render time in the
        viewer's language (the stored `name` is in the language the game was created in)."""
        if not self.bot_strength:
            return self.name
        # A lone computer opponent is "Computer (hard)", several are numbered by seat: the stored name
        # says which (no extra query for the game's other seats).
        numbered = any(ch.isdigit() for ch in self.name)
        try:
            return bot_name(self.bot_strength, self.seat, 2 if numbered else 1)
        except KeyError:  # a strength this version does not know: the stored name is all there is
            return self.name

    @property
    def computer_plays(self) -> bool:
        """A computer player, or a person's seat the computer keeps while they are away."""
        return self.is_bot or self.stand_in

    @property
    def sheet(self) -> Scoresheet:
        return Scoresheet.from_dict({"boxes": self.boxes, "penta_bonus": self.penta_bonus})

    def store_sheet(self, sheet: Scoresheet) -> None:
        data = sheet.to_dict()
        self.boxes = data["boxes"]
        self.penta_bonus = data["penta_bonus"]
        self.total = sheet.total


class Turn(models.Model):
    """One player's turn: the log of its rolls and the box it ended in.

    `rolls` is a list of {"dice": [five faces], "held": [five booleans]} where `held` says which dice
    were kept from the roll before. `dice`/`held` are the current dice and holds."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="turns")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="turns")
    number = models.PositiveSmallIntegerField(help_text="1-based over the whole game; names its dice")
    round = models.PositiveSmallIntegerField()
    dice = models.JSONField(null=True, blank=True)
    held = models.JSONField(default=list, blank=True)
    rolls = models.JSONField(default=list, blank=True)
    chosen_box = models.CharField(max_length=20, blank=True)
    box = models.CharField(max_length=20, blank=True)
    points = models.PositiveSmallIntegerField(null=True, blank=True)
    bonus = models.PositiveSmallIntegerField(default=0)
    auto_committed = models.BooleanField(default=False)
    auto_commit_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # When the computer playing this turn makes its next move (paced so people can follow it).
    next_step_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # The turn timer of a game against friends: when it runs out the computer plays the turn.
    deadline_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # Played by the computer for an absent player (or a timed-out one): not the player's own play.
    stand_in = models.BooleanField(default=False)
    # The server's clock at each roll (seconds since the epoch, one per entry of `rolls`) and when the
    # box was last chosen: how long each decision took, from the dice being shown (fair play's signals).
    roll_times = models.JSONField(default=list, blank=True)
    chosen_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["game", "number"]
        constraints = [models.UniqueConstraint(fields=["game", "number"], name="unique_turn_number")]
        # The turns in play are a few among all the written ones (52 a game of two): the header's count
        # of games waiting for a person's move (every page of theirs) and a move's read of its turn go
        # straight to them instead of through every turn of the person's, or of the game.
        indexes = [
            models.Index(
                fields=["player"], condition=models.Q(completed_at__isnull=True), name="turn_open_by_player"
            ),
            models.Index(
                fields=["game", "number"],
                condition=models.Q(completed_at__isnull=True),
                name="turn_open_by_game",
            ),
        ]

    def __str__(self):
        return f"Turn {self.number} of game {self.game_id}"

    @property
    def rolls_used(self) -> int:
        return len(self.rolls)

    @property
    def is_complete(self) -> bool:
        return self.completed_at is not None

    @property
    def box_label(self) -> str:
        return box_label(self.box)

    @property
    def roll_log(self) -> list[list[tuple[int, bool]]]:
        """Each roll as (face, held from the roll before) pairs."""
        return [list(zip(r["dice"], r["held"], strict=True)) for r in self.rolls]


class Invitation(models.Model):
    """A friend invited to a seat of a game; listed until answered or the game starts.

    "removed" marks a person the host removed from the room (whether they came by invitation or by
    the link; then `from_user` is the host): they cannot take a seat in it again."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        ACCEPTED = "accepted", _("Accepted")
        DECLINED = "declined", _("Declined")
        REMOVED = "removed", _("Removed by the host")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="invitations")
    from_user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    to_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations"
    )
    status = models.CharField(max_length=10, choices=Status, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "to_user"], name="one_invitation_per_game")]

    def __str__(self):
        return f"{self.from_user} invites {self.to_user} to game {self.game_id}"


class GameAnalysis(models.Model):
    """A finished game measured against optimal play (`dicegame.strategy.analysis`), computed once and stored.

    `data` is the whole analysis (every decision of every seat); `summary` is its small per-seat part
    (seat -> loss, decisions, label counts), read by the statistics without loading `data`."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="analysis")
    version = models.PositiveSmallIntegerField()
    data = models.JSONField(default=dict)
    summary = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"Analysis of game {self.game_id} (v{self.version})"


class SeatLink(models.Model):
    """The creator of a local game asks a friend to take a column as theirs; on confirmation the seat's
    `user` becomes the friend (the game then shows in their history; local games are never rated)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        ACCEPTED = "accepted", _("Accepted")
        DECLINED = "declined", _("Declined")

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="links")
    from_user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    to_user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="seat_links")
    status = models.CharField(max_length=10, choices=Status, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["player"], condition=models.Q(status="pending"), name="one_pending_link_per_seat"
            )
        ]

    def __str__(self):
        return f"{self.from_user} offers {self.player} to {self.to_user}"


class CacheVersion(models.Model):
    """The version of something the pages cache (`core.versions`): bumped in the transaction that
    changes it, named in the key of every cached value computed from it."""

    name = models.CharField(max_length=64, primary_key=True)
    value = models.BigIntegerField()

    def __str__(self):
        return f"{self.name} v{self.value}"


# The offers of a game (challenges, seeks), in a module of their own, registered with the app here.
from dicegame.offers import Challenge, Seek  # noqa: E402, F401
