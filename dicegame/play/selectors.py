"""Reads of play: which games an actor may see (players, and spectators of games against friends), a
game's turn log, and an actor's history.

What the game screen shows is built in `dicegame.screen`; the room before a start and the rematch after
the end are `dicegame.play.lobby`."""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.core.paginator import Page, Paginator
from django.db.models import F, Prefetch, Q
from django.http import Http404
from django.utils.translation import gettext as _

from accounts.models import Profile
from accounts.selectors import audiences, friend_ids, hidden_from
from dicegame.actors import Actor
from dicegame.models import Game, Invitation, Player, Turn
from dicegame.records import not_counted_reason, seat_left, secret_until, stand_in_turns
from dicegame.rules.scoring import UPPER_BONUS_THRESHOLD, Box


def _seat_filter(actor: Actor, prefix: str = "") -> Q:
    q = Q(pk__in=[])
    if actor.user_id is not None:
        q |= Q(**{f"{prefix}user_id": actor.user_id})
    if actor.guest_key:
        q |= Q(**{f"{prefix}guest_key": actor.guest_key, f"{prefix}user__isnull": True})
    # The people's seats of the local games the actor created (dicegame.play.local).
    if actor.user_id is not None:
        q |= Q(**{f"{prefix}controller_id": actor.user_id})
    if actor.guest_key:
        q |= Q(**{f"{prefix}controller_guest_key": actor.guest_key, f"{prefix}controller__isnull": True})
    return q


# Who else may see a game on shared dice, as the apps that deal them say (a tournament: whoever may see
# it, once the round is over). Registered from their AppConfig.ready, as the events bus is; play imports
# none of them.
ViewerRule = Callable[[Game, Actor], bool]
_viewer_rules: list[ViewerRule] = []


def register_viewer_rule(rule: ViewerRule) -> None:
    """Let `rule(game, actor)` open a game on shared dice (`Game.on_shared_dice`) to more viewers; it is
    asked about no other game."""
    if rule not in _viewer_rules:
        _viewer_rules.append(rule)


def game_visible(*, game: Game, actor: Actor, token: str = "") -> bool:
    """Who may see a game (the one rule for the page, its tick, its socket and its review): its
    players; and for games against friends also whoever holds its invitation link, logged in or not,
    and the people invited to it and the friends of its players (as spectators); for a game on shared
    dice, whoever the app that dealt them lets in (`register_viewer_rule`). Never, to anyone but its
    players, a game with a seat of someone who chose to show their games to nobody (once it has begun),
    nor to someone between whom and a player there is a block (accounts.selectors.hidden_from)."""
    players = list(game.players.all())
    if any(actor.owns(p) for p in players):
        return True
    if not others_may_see(game, players, actor):
        return False
    if game.on_shared_dice and any(rule(game, actor) for rule in _viewer_rules):
        return True
    if game.kind != Game.Kind.FRIENDS:
        return False
    if token and game.invite_token and hmac.compare_digest(token.encode(), game.invite_token.encode()):
        return True
    if actor.user_id is None:
        return False
    invited = game.invitations.filter(to_user_id=actor.user_id).exclude(status=Invitation.Status.REMOVED)
    if invited.exists():
        return True
    friends = friend_ids(user_id=actor.user_id)
    return any(p.user_id in friends for p in players)


def others_may_see(game: Game, players: list[Player], actor: Actor) -> bool:
    """The people seated allow a viewer who is not one of them: no block between the viewer and any of
    them, and (once the game has begun) none of them shows their games to themselves alone."""
    people = {p.user_id for p in players if p.user_id is not None}
    if not people:
        return True
    if actor.user_id is not None and people & hidden_from(actor.user_id):
        return False
    if game.is_open:
        return True
    return Profile.Audience.ME not in audiences(people).values()


def game_for_viewer(*, game_id: int, actor: Actor, token: str = "") -> Game:
    """The game if the actor may see it (player or spectator); else 404."""
    game = (
        Game.objects.filter(pk=game_id)
        .prefetch_related(
            Prefetch("players", queryset=Player.objects.select_related("user").order_by("seat"))
        )
        .first()
    )
    if game is None or not game_visible(game=game, actor=actor, token=token):
        raise Http404(_("There is no such game."))
    return game


def game_turn_log(*, game: Game) -> list[Turn]:
    return list(
        Turn.objects.filter(game=game, completed_at__isnull=False).select_related("player").order_by("number")
    )


WRITTEN_SINCE_LIMIT = 8  # a page that fell far behind is redrawn; it cheers for the latest turns only


def turns_written_since(*, game: Game, number: int) -> list[tuple[Turn, bool]]:
    """The turns written from turn `number` on, each with whether it reached its seat's upper bonus: what
    a page that showed turn `number` has not seen written (the clock may have written it before the
    page's tick came: that answer still tells what happened, as `moves.write` tells a push)."""
    turns = list(
        Turn.objects.filter(game=game, number__gte=number, completed_at__isnull=False)
        .exclude(box="")
        .select_related("player")
        .order_by("-number")[:WRITTEN_SINCE_LIMIT]
    )[::-1]
    written = []
    for t in turns:
        # The seat's upper total after this turn: now, less the upper boxes it wrote later.
        mine_later = (u for u in turns if u.player_id == t.player_id and u.number > t.number)
        later = sum(u.points for u in mine_later if _upper(u))
        after = t.player.sheet.upper_total - later
        before = after - (t.points if _upper(t) else 0)
        written.append((t, before < UPPER_BONUS_THRESHOLD <= after))
    return written


def _upper(turn: Turn) -> bool:
    return Box[turn.box].is_upper


# -- history -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HistoryRow:
    game: Game
    me: Player
    opponents: list[Player]
    # A local game seen by its creator: `me` is the leading seat, the result names the winner.
    device_owner: bool = False
    # A game in play: the turn in play (its player moves next, until its deadline).
    turn: Turn | None = None

    @property
    def to_move(self) -> Player | None:
        """Who moves next in a game in play (None: a room, or a finished game)."""
        if self.turn is None or not self.game.is_active:
            return None
        return next((p for p in (self.me, *self.opponents) if p.pk == self.turn.player_id), None)

    @property
    def my_turn(self) -> bool:
        return self.to_move is not None and self.to_move.pk == self.me.pk

    @property
    def secret(self) -> bool:
        """A game whose dice are still secret (a tournament round still open): in no record yet, so the
        list shows no total or result for it, only the way back to the game (dicegame.records)."""
        return secret_until(self.game) is not None

    @property
    def not_counted(self) -> bool:
        """A finished game that will not count for this seat's records (dicegame.records' one rule)."""
        return self.game.is_finished and bool(
            not_counted_reason(game=self.game, stand_in_turns=self.me.stand_in_turns)
        )

    @property
    def result(self) -> str:
        if self.game.is_open:
            return _("Waiting for players")
        if not self.game.is_finished:
            return _("In play")
        if self.secret:
            return _("Played: the result comes when the round closes")
        if self.device_owner:
            winners = [p.name for p in (self.me, *self.opponents) if p.rank == 1]
            return _("Won by %(names)s") % {"names": ", ".join(winners)}
        if self.me.left_at is not None and self.game.kind != Game.Kind.FRIENDS:
            return _("Resigned: a loss") if self.opponents else _("Resigned")
        if not self.opponents:
            return _("Finished")
        if seat_left(self.me):
            return _("Left: a loss")
        # Whoever left comes after everyone still at the table.
        at_table = [o for o in self.opponents if not seat_left(o)]
        place = 1 + sum(1 for o in at_table if o.total > self.me.total)
        if place == 1:
            return _("Shared win") if any(o.total == self.me.total for o in at_table) else _("Won")
        return _("Place %(rank)d of %(seats)d") % {"rank": place, "seats": len(self.opponents) + 1}


def _own_seat(actor: Actor, player: Player) -> bool:
    """The actor's own seat (as a user or a guest), not one they only play for on their device."""
    if actor.user_id is not None and player.user_id == actor.user_id:
        return True
    return bool(actor.guest_key) and player.user_id is None and player.guest_key == actor.guest_key


def history_page(*, actor: Actor, page: str | int | None) -> Page:
    """The actor's games, newest first, one page at a time (a bad page number gives the nearest page)."""
    seats = Player.objects.filter(_seat_filter(actor)).values("game_id")
    games = (
        Game.objects.filter(pk__in=seats)
        # A cancelled or expired room was never played: not a game of the history.
        .exclude(status__in=[Game.Status.CANCELLED, Game.Status.EXPIRED])
        .prefetch_related(
            Prefetch(
                "players",
                queryset=Player.objects.annotate(stand_in_turns=stand_in_turns()).order_by("seat"),
            ),
            Prefetch("turns", queryset=Turn.objects.filter(completed_at__isnull=True), to_attr="open_turns"),
        )
        .order_by("-created_at", "-id")
    )
    paginator = Paginator(games, settings.PENTA_HISTORY_PAGE_SIZE)
    page_obj = paginator.get_page(page)
    rows = []
    for game in page_obj.object_list:
        players = list(game.players.all())
        mine = [p for p in players if actor.owns(p)]
        me = next((p for p in mine if _own_seat(actor, p)), None)
        device_owner = me is None
        if device_owner:
            # Every person's seat is the creator's to play: show the leader's (or winner's) column.
            me = max(mine, key=lambda p: (p.total, -p.seat))
        rows.append(
            HistoryRow(
                game=game,
                me=me,
                opponents=[p for p in players if p.pk != me.pk],
                device_owner=device_owner,
                turn=game.open_turns[0] if game.open_turns else None,
            )
        )
    page_obj.object_list = rows
    return page_obj


@dataclass(frozen=True)
class Waiting:
    """A game against friends waiting for one person's move (`turn` is theirs)."""

    game: Game
    turn: Turn
    opponents: list[Player]

    @property
    def deadline(self):
        return self.turn.deadline_at

    @property
    def opponent_names(self) -> str:
        return ", ".join(p.display_name for p in self.opponents)

    @property
    def round(self) -> int:
        return self.turn.round

    @property
    def scores(self) -> list[tuple[str, int]]:
        """Each seat's total so far, the person's first ("" names them): the score against them."""
        return [("", self.turn.player.total)] + [(p.display_name, p.total) for p in self.opponents]


def waiting_turns(user_id: int):
    """The turns in play of games against friends that are the person's to play (not the computer's)."""
    return Turn.objects.filter(
        completed_at__isnull=True,
        player__user_id=user_id,
        player__stand_in=False,
        player__left_at__isnull=True,
        # A challenge not accepted yet waits in the inbox as a challenge, not as a move.
        player__challenged=False,
        game__status=Game.Status.ACTIVE,
        game__kind=Game.Kind.FRIENDS,
    )


def games_waiting_for(*, user_id: int) -> list[Waiting]:
    """The games against friends in which it is the person's turn, the one whose time runs out first
    first (games with no clock last). Two queries."""
    turns = list(
        waiting_turns(user_id)
        .select_related("game", "player")
        .order_by(F("deadline_at").asc(nulls_last=True), "game_id")
    )
    others: dict[int, list[Player]] = {}
    for player in Player.objects.filter(game_id__in=[t.game_id for t in turns]).exclude(user_id=user_id):
        others.setdefault(player.game_id, []).append(player)
    return [Waiting(t.game, t, sorted(others.get(t.game_id, []), key=lambda p: p.seat)) for t in turns]


def next_game_waiting(*, game: Game, seat: Player | None, my_turn: bool) -> Waiting | None:
    """While a game against friends waits for someone else, the seat's person's next game waiting for
    their move (the answer to their own action offers it: on the page, after a POST or on the socket)."""
    if game.kind != Game.Kind.FRIENDS or not game.is_active or seat is None or my_turn or not seat.user_id:
        return None
    return next((w for w in games_waiting_for(user_id=seat.user_id) if w.game.pk != game.pk), None)


def games_waiting_count(*, user_id: int) -> int:
    """How many games against friends wait for the person's move (one query: the header's count)."""
    return waiting_turns(user_id).count()
