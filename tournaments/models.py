"""Tournaments on the same dice: a tournament, its rounds (each one seed, the same dice for every
entrant), its entrants and the game each entrant plays in a round."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

MIN_ROUNDS, MAX_ROUNDS = 1, 7
MIN_WINDOW, MAX_WINDOW = 3600, 3 * 86400  # a round's window: an hour to three days
MIN_ENTRANTS, MAX_ENTRANTS = 2, 200
# A rated tournament counts for its players' pages (places, matchpoint averages) only if at least this
# many entrants played it (started a round's game): a field in which a place means more than a duel.
# Entrants who never play count for nothing, so idle accounts can no longer make a "1 of 4"; and every
# player must have passed the rated entry rule below. (The setting PENTA_RATED_MIN_PLAYERS may change it.)
RATED_MIN_PLAYERS = 3
# Who may enter (or make) a rated tournament: an account at least this many days old, with at least this
# many finished games that count for records (`dicegame.records`). Accounts made for the occasion can
# then neither fill the weekly's places nor feed their maker matchpoints. (Settings of the same names,
# PENTA_RATED_ENTRY_MIN_DAYS and PENTA_RATED_ENTRY_MIN_GAMES, may change them.)
RATED_ENTRY_MIN_DAYS = 7
RATED_ENTRY_MIN_GAMES = 5


class Tournament(models.Model):
    """A tournament of `rounds` rounds played one after the other, each open for `window_seconds`.

    Round 1 opens at `starts_at`; each next round opens when the one before closes. Entry is open
    until the first round closes, to at most `max_entrants` (counted in `entrant_count`, which a check
    constraint holds under `max_entrants` whatever the races). A weekly tournament (`weekly_of`, the
    Monday of its week, unique) is made by the clock; the others by a person (`creator`)."""

    class Access(models.TextChoices):
        PUBLIC = "public", _("Public: anyone logged in can enter")
        INVITATION = "invitation", _("By invitation: your friends, or anyone with the link")

    name = models.CharField(max_length=60, blank=True)
    creator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="tournaments_created",
    )
    weekly_of = models.DateField(null=True, blank=True, unique=True)
    access = models.CharField(max_length=16, choices=Access, default=Access.INVITATION)
    invite_token = models.CharField(max_length=43, blank=True, db_index=True)
    rounds = models.PositiveSmallIntegerField()
    window_seconds = models.PositiveIntegerField()
    max_entrants = models.PositiveSmallIntegerField()
    # Rated: the tournament counts for the players' tournament results on their player pages, once at
    # least RATED_MIN_PLAYERS played it; its entrants need an account with some history
    # (`eligibility.rated_entry_refusal`).
    rated = models.BooleanField(default=True)
    entrant_count = models.PositiveSmallIntegerField(default=0)
    starts_at = models.DateTimeField()
    created_at = models.DateTimeField(default=timezone.now)
    # The last round settled and the final places written (`Entry.place`); or called off when entry
    # closed with fewer than MIN_ENTRANTS.
    finished_at = models.DateTimeField(null=True, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-starts_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(rounds__gte=MIN_ROUNDS, rounds__lte=MAX_ROUNDS), name="tournament_rounds"
            ),
            models.CheckConstraint(
                condition=Q(window_seconds__gte=MIN_WINDOW, window_seconds__lte=MAX_WINDOW),
                name="tournament_window",
            ),
            models.CheckConstraint(
                condition=Q(max_entrants__gte=MIN_ENTRANTS, max_entrants__lte=MAX_ENTRANTS),
                name="tournament_max_entrants",
            ),
            # The entry limit holds in the database itself: a join past it fails, whatever the race.
            models.CheckConstraint(
                condition=Q(entrant_count__lte=F("max_entrants")), name="tournament_entry_limit"
            ),
        ]
        indexes = [models.Index(fields=["access", "finished_at"], name="tournament_listing")]

    def __str__(self) -> str:
        return f"Tournament {self.pk} ({self.name or self.weekly_of})"

    @property
    def is_weekly(self) -> bool:
        return self.weekly_of is not None

    @property
    def title(self) -> str:
        """The name people read: a weekly tournament's is made in the reader's language."""
        if self.weekly_of is not None:
            return _("Weekly tournament %(week)s") % {"week": self.weekly_of.strftime("%G-W%V")}
        return self.name


class Round(models.Model):
    """One round: one game on one seed for every entrant (the dice recipe's `{game}` is `dice_key`).
    The seed is drawn with `secrets` when the tournament is made; its SHA-256 is shown from then on, the
    seed itself only once the round has closed. `opens_at`/`closes_at` move earlier when a round before
    closes early (every entrant finished). `settled_at`: closed, every game in it over, results final."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField()
    seed = models.CharField(max_length=64, help_text="secret until the round closes")
    commitment = models.CharField(max_length=64)
    opens_at = models.DateTimeField()
    closes_at = models.DateTimeField()
    settled_at = models.DateTimeField(null=True, blank=True)
    # Optimal play's total on the round's dice (one seat): stored once the round is settled.
    par = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="one_round_number")]
        indexes = [
            models.Index(fields=["settled_at", "closes_at"], name="round_due"),
            # The settled rounds still without their par (the clock works it out), never the others.
            models.Index(
                fields=["settled_at"],
                condition=Q(par__isnull=True, settled_at__isnull=False),
                name="round_par_due",
            ),
        ]

    def __str__(self) -> str:
        return f"Round {self.number} of tournament {self.tournament_id}"

    @property
    def dice_key(self) -> str:
        return f"t{self.tournament_id}-r{self.number}"

    def is_open(self, now=None) -> bool:
        now = now or timezone.now()
        return self.settled_at is None and self.opens_at <= now < self.closes_at

    def is_closed(self, now=None) -> bool:
        """Closed: nobody can play it any more, and its seed may be shown."""
        return (now or timezone.now()) >= self.closes_at


class Entry(models.Model):
    """A person entered in a tournament: once (the constraint). `withdrawn_at`: withdrew after playing
    (an entrant who has started no game leaves instead, and the entry goes); still placed, the rounds
    not played scored as not started. `place` and `score`: the final table's, written when the
    tournament finishes (and again if a fair-play decision changes it); no place: not ranked (started no
    game, or off the boards for fair play)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournament_entries"
    )
    joined_at = models.DateTimeField(default=timezone.now)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.FloatField(null=True, blank=True, help_text="the sum of the rounds' percentages")

    class Meta:
        ordering = ["tournament", "joined_at", "id"]
        constraints = [models.UniqueConstraint(fields=["tournament", "user"], name="one_entry_per_person")]

    def __str__(self) -> str:
        return f"{self.user} in tournament {self.tournament_id}"


class RoundGame(models.Model):
    """The game an entrant plays in a round: one (the constraint; starting again resumes it). `total`
    and `finished_at` are copied from the game when it ends (`services.on_game_finished`)."""

    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="games")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="games")
    game = models.OneToOneField("dicegame.Game", on_delete=models.CASCADE, related_name="tournament_game")
    started_at = models.DateTimeField(default=timezone.now)
    total = models.PositiveIntegerField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["round", "started_at"]
        constraints = [models.UniqueConstraint(fields=["entry", "round"], name="one_game_per_round")]

    def __str__(self) -> str:
        return f"Game {self.game_id} of {self.entry} in round {self.round_id}"


class StandingsChange(models.Model):
    """Something changed a tournament's standings (a game finished, an entrant came, left or started a
    round's game): the clock pushes the table to the open pages once, then deletes these rows. Inserted
    rather than a counter updated, so 200 games ending at once queue on no one row."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"Change of tournament {self.tournament_id}"
