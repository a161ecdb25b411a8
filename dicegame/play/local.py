"""Local games (pass and play): 2 to 4 people on one device, each a typed name, with optional computer
seats, and afterwards a column linked to a friend's account on their say-so.

The people's seats have no user: their `controller` (or `controller_guest_key` for a guest) is the
creator, so `Actor.owns` lets the creator's device act for whichever person's seat is current, and the
turn flow in `dicegame.play` (rules, auto-commit, dice commitment, the computer's paced moves) runs
unchanged. Local games never count for leaderboards (`dicegame.records.counted_seats`).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import SentNotice
from accounts.selectors import are_friends, friends_of
from accounts.services import NoticeLimited, notice_quota_take
from core import versions
from dicegame import events
from dicegame.actors import Actor
from dicegame.errors import GameActionError, GameNotFound
from dicegame.labels import bot_name
from dicegame.models import Game, Player, SeatLink, Turn
from dicegame.play.kernel import person_play_settings, seat_auto_commit
from dicegame.rules import dice
from dicegame.rules.names import clean_name, is_visible
from dicegame.strategy import STRENGTHS

MIN_PEOPLE = 2
MAX_SEATS = 4
NAME_MAX_LENGTH = 30


@dataclass(frozen=True)
class SeatSpec:
    """One seat of the form: a person's name, or a computer of a strength."""

    name: str = ""
    strength: str = ""


def local_game_create(*, actor: Actor, seats: list[SeatSpec], hints: bool = False) -> Game:
    """A local game with the seats in the order given: 2 to 4 seats, at least two people. `hints`
    switches the optimal-play hints on from the start (the game is then marked)."""
    if actor.user_id is None and not actor.guest_key:
        raise GameActionError(_("Start a game from the home page."), status=400)
    people = [s for s in seats if not s.strength]
    if len(people) < MIN_PEOPLE:
        raise GameActionError(_("A game on one device needs at least two people."), status=400)
    if len(seats) > MAX_SEATS:
        raise GameActionError(_("A game has at most four seats."), status=400)
    # A name is shown in a narrow column head, to everyone at the table (and in a linked friend's
    # history): one space between words, no bidirectional or invisible characters, something to read.
    names = [clean_name(s.name) for s in people]
    if any(not is_visible(name) for name in names):
        raise GameActionError(_("Type a name for every person."), status=400)
    if any(len(name) > NAME_MAX_LENGTH for name in names):
        raise GameActionError(_("A name has at most %(n)d characters.") % {"n": NAME_MAX_LENGTH}, status=400)
    if len({name.casefold() for name in names}) != len(names):
        raise GameActionError(_("Give every person a different name."), status=400)
    unknown = [s.strength for s in seats if s.strength and s.strength not in STRENGTHS]
    if unknown:
        raise GameActionError(
            _("Unknown strength %(name)s: choose easy, medium, hard or winner.") % {"name": repr(unknown[0])},
            status=400,
        )
    bots = sum(1 for s in seats if s.strength)
    chosen = person_play_settings(actor)
    with transaction.atomic():
        seed = dice.new_seed()
        game = Game.objects.create(
            kind=Game.Kind.LOCAL,
            seed=seed,
            seed_commitment=dice.commitment(seed),
            host_id=actor.user_id,
            seats_wanted=len(seats),
            hints_used=hints,
            fast_computer=chosen.fast_computer,
        )
        auto_commit = seat_auto_commit(game, chosen.auto_commit)
        players = []
        bot_number = 0
        for index, spec in enumerate(seats):
            if spec.strength:
                bot_number += 1
                players.append(
                    Player.objects.create(
                        game=game,
                        seat=index,
                        bot_strength=spec.strength,
                        name=bot_name(spec.strength, bot_number, bots),
                    )
                )
            else:
                players.append(
                    Player.objects.create(
                        game=game,
                        seat=index,
                        name=clean_name(spec.name),
                        controller_id=actor.user_id,
                        controller_guest_key="" if actor.user_id is not None else actor.guest_key,
                        hints=hints,
                        auto_commit_seconds=auto_commit,
                    )
                )
        first = players[0]
        Turn.objects.create(
            game=game,
            player=first,
            number=1,
            round=1,
            held=[False] * 5,
            # A computer in the first seat starts at once; the clock paces its moves as in every game.
            next_step_at=timezone.now() if first.is_bot else None,
        )
    return game


def again_query(players: list[Player]) -> str:
    """The new-game form's query for the same table again: the people's names and the computers'
    strengths, in their seats' order (the form is filled in, not sent: they may change a name)."""
    people = [p for p in players if not p.is_bot][:MAX_SEATS]
    bots = [p for p in players if p.is_bot][: MAX_SEATS - MIN_PEOPLE]
    fields = [(f"name_{n}", p.name) for n, p in enumerate(people, 1)]
    fields += [(f"computer_{n}", p.bot_strength) for n, p in enumerate(bots, 1)]
    return urlencode(fields)


def local_games_claim(*, user: AbstractBaseUser, guest_key: str) -> int:
    """A guest logged in or signed up: the local games they created from this session move into the
    account (they keep acting for them). Returns how many seats moved."""
    if not guest_key:
        return 0
    seats = Player.objects.filter(controller_guest_key=guest_key, controller__isnull=True)
    Game.objects.filter(pk__in=seats.values("game_id"), host__isnull=True).update(host=user)
    return seats.update(controller=user, controller_guest_key="")


# -- linking a column to a friend --------------------------------------------------------------------


def _owned_local_game(game_id: int, user_id: int) -> Game:
    game = Game.objects.filter(pk=game_id, kind=Game.Kind.LOCAL).first()
    if game is None or not Player.objects.filter(game=game, controller_id=user_id).exists():
        raise GameNotFound(_("There is no such game."))
    return game


def seat_link_request(*, user: AbstractBaseUser, game_id: int, seat: int, username: str) -> SeatLink:
    """The creator of a finished local game offers a person's column to a friend."""
    with transaction.atomic():
        game = _owned_local_game(game_id, user.pk)
        if not game.is_finished:
            raise GameActionError(_("A column can be linked to a friend once the game is over."))
        player = (
            Player.objects.select_for_update()
            .filter(game=game, seat=seat, bot_strength="", controller_id=user.pk)
            .first()
        )
        if player is None:
            raise GameActionError(_("There is no such person's seat in this game."), status=400)
        if player.user_id is not None:
            raise GameActionError(_("This column is already linked to an account."))
        friend = get_user_model().objects.filter(username=username, is_active=True).first()
        if friend is None or friend.pk == user.pk or not are_friends(a=user.pk, b=friend.pk):
            raise GameActionError(_("You can only link a column to one of your friends."), status=400)
        if Player.objects.filter(game=game, user=friend).exists():
            raise GameActionError(
                _("%(name)s already has a column in this game.") % {"name": friend.get_username()}
            )
        try:
            notice_quota_take(
                sender_id=user.pk,
                recipient_id=friend.pk,
                recipient_name=friend.get_username(),
                kind=SentNotice.Kind.COLUMN,
            )
        except NoticeLimited as exc:
            raise GameActionError(exc.message, status=exc.status) from None
        if SeatLink.objects.filter(player__game=game, to_user=friend).exists():
            # One offer of a game to a friend (offering it again sent a notice each time); checked under the
            # sender's row lock (taken by the count), so offers sent at once cannot both pass.
            raise GameActionError(
                _(
                    "You have already offered %(name)s a column of this game: they confirm or decline it "
                    "on their My games page."
                )
                % {"name": friend.get_username()},
                status=409,
            )
        SeatLink.objects.filter(player=player, status=SeatLink.Status.PENDING).update(
            status=SeatLink.Status.DECLINED, answered_at=timezone.now()
        )
        try:
            with transaction.atomic():
                link = SeatLink.objects.create(player=player, from_user=user, to_user=friend)
        except IntegrityError:  # another request for this seat won the race
            raise GameActionError(_("This column has just been offered: reload the page.")) from None
        _notify_after_commit(friend.pk, user.get_username())
        return link


def _notify_after_commit(user_id: int, from_name: str) -> None:
    """A live notice on any page the friend has open, in that page's language."""

    def notice() -> events.Notice:
        return events.Notice(
            _("%(name)s asks you to confirm a column of a game played on their device.")
            % {"name": from_name},
            reverse("dicegame:history"),
            _("My games"),
        )

    events.publish(events.PersonNotified(user_id, notice))


def seat_link_answer(*, user: AbstractBaseUser, link_id: int, accept: bool) -> SeatLink:
    """The friend confirms (the column becomes theirs) or declines a column offered to them."""
    with transaction.atomic():
        link = (
            SeatLink.objects.select_for_update()
            .filter(pk=link_id, to_user=user)
            .select_related("player")
            .first()
        )
        if link is None:
            raise GameNotFound(_("There is no such request."))
        if link.status != SeatLink.Status.PENDING:
            raise GameActionError(_("This request has already been answered."))
        player = Player.objects.select_for_update().get(pk=link.player_id)
        if accept:
            if player.user_id is not None:
                raise GameActionError(_("This column is already linked to an account."))
            if Player.objects.filter(game_id=player.game_id, user=user).exists():
                raise GameActionError(_("You already have a column in this game."))
            player.user = user
            player.save(update_fields=["user"])
            versions.bump(versions.user(user.pk))  # the game is in their history and statistics now
        link.status = SeatLink.Status.ACCEPTED if accept else SeatLink.Status.DECLINED
        link.answered_at = timezone.now()
        link.save(update_fields=["status", "answered_at"])
        return link


# -- reads -------------------------------------------------------------------------------------------


def seat_links_pending_for(*, user_id: int) -> list[SeatLink]:
    """Columns offered to the user, waiting for their answer, newest first."""
    return list(
        SeatLink.objects.filter(to_user_id=user_id, status=SeatLink.Status.PENDING)
        .select_related("from_user", "player", "player__game")
        .order_by("-created_at", "-id")
    )


@dataclass(frozen=True)
class LinkSeat:
    player: Player
    pending: SeatLink | None


@dataclass(frozen=True)
class LinkPage:
    game: Game
    seats: list[LinkSeat]
    friends: list


def link_page(*, game_id: int, user_id: int) -> LinkPage:
    """What the creator's "link a column" page shows: each person's seat and its state, and the friends."""
    game = _owned_local_game(game_id, user_id)
    people = list(Player.objects.filter(game=game, bot_strength="").select_related("user").order_by("seat"))
    pending = {
        link.player_id: link
        for link in SeatLink.objects.filter(player__in=people, status=SeatLink.Status.PENDING).select_related(
            "to_user"
        )
    }
    seated = {p.user_id for p in people if p.user_id}
    return LinkPage(
        game=game,
        seats=[LinkSeat(p, pending.get(p.pk)) for p in people],
        friends=list(friends_of(user_id=user_id).exclude(pk__in=seated)),
    )
