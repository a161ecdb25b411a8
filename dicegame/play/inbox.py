"""Reads of what waits for a person and what they offer: the inbox at the top of their home page (the
games waiting for their move, the challenges and invitations waiting for their answer, their own
challenges and open games waiting for others), the header's count of what waits for them, a challenge's
page, and the list of open correspondence games anyone may take."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from django.db.models import Q
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.selectors import may_challenge
from dicegame.models import Game, Invitation
from dicegame.offers import Challenge, Seek
from dicegame.play.lobby import game_invitations_pending
from dicegame.play.selectors import Waiting, games_waiting_for, waiting_turns

# A challenge answered this recently is still followed by its page (it moves to the game, or says so).
FOLLOWED_FOR = timedelta(minutes=10)
OPEN_LIST_LIMIT = 50


@dataclass(frozen=True)
class Inbox:
    games: list[Waiting]
    challenges: list[Challenge]  # to the person, waiting for their answer
    invitations: list[Invitation]  # to rooms, waiting for their answer
    sent: list[Challenge]  # the person's own, waiting for an answer
    seeks: list[Seek] = field(default_factory=list)  # the person's open games in the list

    @property
    def count(self) -> int:
        """What waits for the person: the header's badge."""
        return len(self.games) + len(self.challenges) + len(self.invitations)

    @property
    def empty(self) -> bool:
        return not (self.count or self.sent or self.seeks)


def _pending(now) -> Q:
    return Q(status=Challenge.Status.PENDING, expires_at__gt=now)


def inbox_for(*, user_id: int) -> Inbox:
    now = timezone.now()
    mine = Challenge.objects.filter(_pending(now)).select_related("from_user", "to_user", "game")
    return Inbox(
        games=games_waiting_for(user_id=user_id),
        challenges=list(mine.filter(to_user_id=user_id).order_by("expires_at", "pk")),
        invitations=list(game_invitations_pending(user_id)),
        sent=list(mine.filter(from_user_id=user_id).order_by("expires_at", "pk")),
        seeks=list(Seek.objects.filter(user_id=user_id, status=Seek.Status.OPEN, move_seconds__gt=0)),
    )


def _waiting(turns_of: int, now, challenges_to: int, invitations_to: int):
    """The ids of what waits for a person (each of the three ids is theirs): their turns in play,
    the challenges and the invitations to them, in one statement."""
    challenges = Challenge.objects.filter(_pending(now), to_user_id=challenges_to)
    invitations = Invitation.objects.filter(
        to_user_id=invitations_to, status=Invitation.Status.PENDING, game__status=Game.Status.OPEN
    )
    return (
        waiting_turns(turns_of)
        .order_by()
        .values_list("pk")
        .union(challenges.order_by().values_list("pk"), invitations.order_by().values_list("pk"), all=True)
        .order_by()
    )


def inbox_count(*, user_id: int) -> int:
    """How many things wait for the person: games for their move, challenges and invitations for their
    answer (the header's badge, on every page of a logged-in person: one statement)."""
    return _waiting(user_id, timezone.now(), user_id, user_id).count()


def challenge_for(*, challenge_id: int, user_id: int | None) -> Challenge:
    """A challenge its challenger or the challenged person looks at; else 404."""
    challenge = (
        Challenge.objects.filter(pk=challenge_id)
        .filter(Q(from_user_id=user_id) | Q(to_user_id=user_id))
        .select_related("from_user", "to_user", "game")
        .first()
        if user_id is not None
        else None
    )
    if challenge is None:
        raise Http404(_("There is no such challenge."))
    if challenge.is_pending and challenge.expires_at <= timezone.now():
        # The clock has not come by yet: it has expired all the same.
        challenge.status = Challenge.Status.EXPIRED
    return challenge


def challenges_followed(*, user_id: int) -> list[int]:
    """The person's challenges (either way) whose page follows them: pending, or answered lately."""
    since = timezone.now() - FOLLOWED_FOR
    return list(
        Challenge.objects.filter(Q(from_user_id=user_id) | Q(to_user_id=user_id))
        .filter(Q(status=Challenge.Status.PENDING) | Q(answered_at__gte=since))
        .order_by("-pk")
        .values_list("pk", flat=True)[:20]
    )


def game_challenge(*, game: Game) -> Challenge | None:
    """The challenge a game was made by, when it is still waiting for its answer (a correspondence
    challenge's game: the board says so and offers the answer)."""
    if game.kind != Game.Kind.FRIENDS:
        return None
    return (
        Challenge.objects.filter(game=game, status=Challenge.Status.PENDING)
        .select_related("from_user", "to_user")
        .first()
    )


def last_terms(*, user_id: int, to_user_id: int | None = None) -> Challenge | None:
    """The person's last challenge (to this person if they sent one, else to anyone): a new challenge
    starts from its terms ("play again" is one tap)."""
    sent = Challenge.objects.filter(from_user_id=user_id, rematch_of__isnull=True).order_by("-pk")
    return (to_user_id and sent.filter(to_user_id=to_user_id).first()) or sent.first()


@dataclass(frozen=True)
class OpenGames:
    seeks: list[Seek]
    move_seconds: int | None
    min_rating: int | None
    max_rating: int | None


def open_games(
    *, viewer_id: int | None, move_seconds: int | None, min_rating: int | None, max_rating: int | None
) -> OpenGames:
    """The open correspondence games others offer, oldest first, filtered by pace and rating; those of
    people the viewer may not be paired with are left out."""
    seeks = Seek.objects.filter(status=Seek.Status.OPEN, move_seconds__gt=0, expires_at__gt=timezone.now())
    if move_seconds:
        seeks = seeks.filter(move_seconds=move_seconds)
    if min_rating is not None:
        seeks = seeks.filter(rating__gte=min_rating)
    if max_rating is not None:
        seeks = seeks.filter(rating__lte=max_rating)
    if viewer_id is not None:
        seeks = seeks.exclude(user_id=viewer_id)
    found = [
        s
        for s in seeks.order_by("created_at", "pk")[:OPEN_LIST_LIMIT]
        if viewer_id is None
        or may_challenge(from_user_id=viewer_id, to_user_id=s.user_id, pairing=True) is None
    ]
    return OpenGames(found, move_seconds, min_rating, max_rating)
