"""Reads: which games an actor may see, and what the game screen and the history show."""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field

from django.conf import settings
from django.core.paginator import Page, Paginator
from django.db.models import Prefetch, Q
from django.http import Http404
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from dicegame.labels import box_label
from dicegame.models import Game, Player, Turn
from dicegame.scoring import UPPER_BONUS, UPPER_BONUS_THRESHOLD, Box, Scoresheet
from dicegame.services import MAX_ROLLS, Actor, turn_auto_commit_remaining
from dicegame.strategy import Strategy


def _seat_filter(actor: Actor, prefix: str = "") -> Q:
    q = Q(pk__in=[])
    if actor.user_id is not None:
        q |= Q(**{f"{prefix}user_id": actor.user_id})
    if actor.guest_key:
        q |= Q(**{f"{prefix}guest_key": actor.guest_key, f"{prefix}user__isnull": True})
    return q


def game_visible(*, game: Game, actor: Actor, token: str = "") -> bool:
    """Who may see a game (the one rule for the page, its tick, its socket and its review): its
    players; and for games against friends also whoever holds its invitation link, logged in or not,
    and the people invited to it and the friends of its players (as spectators)."""
    players = list(game.players.all())
    if any(actor.owns(p) for p in players):
        return True
    if game.kind != Game.Kind.FRIENDS:
        return False
    if token and game.invite_token and hmac.compare_digest(token.encode(), game.invite_token.encode()):
        return True
    if actor.user_id is None:
        return False
    from dicegame.models import Invitation

    invited = game.invitations.filter(to_user_id=actor.user_id).exclude(status=Invitation.Status.REMOVED)
    if invited.exists():
        return True
    from accounts.selectors import friend_ids

    friends = friend_ids(user_id=actor.user_id)
    return any(p.user_id in friends for p in players)


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


# -- the game screen ---------------------------------------------------------------------------------

# The regions of the game screen (partials of dicegame/game.html) a small change can alter; any other
# change redraws them all.
CHANGE_REGIONS = {
    "holds": frozenset({"turn-status", "dice-tray"}),
    "choice": frozenset({"turn-status", "scoresheet"}),
}


@dataclass(frozen=True)
class Die:
    index: int  # 1-5
    value: int | None
    held: bool
    pips: tuple[bool, ...]  # the 3x3 grid of pips, row by row


@dataclass(frozen=True)
class Cell:
    filled: int | None  # points written, if filled
    option: int | None  # points the current dice would write here, if legal (current seat only)


@dataclass(frozen=True)
class SheetRow:
    """One box across every seat; the button and its state belong to the viewer's own seat."""

    box: Box
    label: str
    cells: list[Cell]
    my_filled: int | None
    selectable: bool  # the viewer may choose this box for the current dice
    chosen: bool

    @property
    def is_upper(self) -> bool:
        return self.box.is_upper


@dataclass(frozen=True)
class SeatSheet:
    player: Player
    sheet: Scoresheet
    is_current: bool
    is_mine: bool

    @property
    def upper_to_go(self) -> int:
        return max(0, UPPER_BONUS_THRESHOLD - self.sheet.upper_total)


@dataclass(frozen=True)
class HintLine:
    label: str
    expected_total: float
    cost: float  # expected final points given up against the best choice

    @property
    def is_best(self) -> bool:
        return self.cost < 0.005


@dataclass(frozen=True)
class Hints:
    """The optimal strategy's view of the player's position: every hold and every box, best first."""

    expected_total: float  # under optimal play from here
    keeps: list[HintLine]
    boxes: list[HintLine]


def _keep_label(keep: tuple[int, ...]) -> str:
    if not keep:
        return _("Reroll all five")
    if len(keep) == 5:
        return _("Hold all five: write now")
    return _("Hold %(dice)s") % {"dice": " ".join(str(v) for v in keep)}


def game_hints(*, sheet: Scoresheet, dice_values: tuple[int, ...] | None, rolls_used: int) -> Hints:
    strategy = Strategy.shared()
    if dice_values is None:
        return Hints(expected_total=strategy.expected_total(sheet), keeps=[], boxes=[])
    rolls_left = MAX_ROLLS - rolls_used
    boxes = strategy.evaluate(sheet, dice_values, 0)
    keeps = strategy.evaluate(sheet, dice_values, rolls_left) if rolls_left else []
    best = max(c.expected_total for c in (keeps or boxes))
    return Hints(
        expected_total=best,
        keeps=[HintLine(_keep_label(c.keep), c.expected_total, best - c.expected_total) for c in keeps[:6]],
        boxes=[
            HintLine(f"{box_label(c.box)} ({c.points})", c.expected_total, best - c.expected_total)
            for c in boxes
        ],
    )


@dataclass(frozen=True)
class Board:
    game: Game
    turn: Turn | None
    dice: list[Die]
    seats: list[SeatSheet]
    rows: list[SheetRow]
    my_turn: bool
    rolls_used: int
    rolls_left: int
    can_roll: bool
    can_hold: bool
    can_confirm: bool
    chosen_label: str
    must_sacrifice: bool
    countdown: float | None
    bot_playing: bool = False
    next_step_ms: int | None = None
    can_hint: bool = False
    hints_on: bool = False
    hints: Hints | None = None
    my_seat: Player | None = None
    deadline_ms: int | None = None
    game_url: str = ""
    turns: list[Turn] = field(default_factory=list)

    @property
    def spectator(self) -> bool:
        return self.my_seat is None

    @property
    def upper_rows(self) -> list[SheetRow]:
        return [r for r in self.rows if r.is_upper]

    @property
    def lower_rows(self) -> list[SheetRow]:
        return [r for r in self.rows if not r.is_upper]

    @property
    def upper_bonus(self) -> int:
        return UPPER_BONUS

    @property
    def upper_threshold(self) -> int:
        return UPPER_BONUS_THRESHOLD

    @property
    def countdown_ms(self) -> int | None:
        return None if self.countdown is None else int(self.countdown * 1000)

    @property
    def countdown_seconds(self) -> int | None:
        return None if self.countdown is None else int(-(-self.countdown // 1))


_PIPS = {
    1: (4,),
    2: (0, 8),
    3: (0, 4, 8),
    4: (0, 2, 6, 8),
    5: (0, 2, 4, 6, 8),
    6: (0, 2, 3, 5, 6, 8),
}


def pips(value: int | None) -> tuple[bool, ...]:
    on = _PIPS.get(value or 0, ())
    return tuple(i in on for i in range(9))


def game_board(
    *, game: Game, actor: Actor, with_log: bool = False, players: list | None = None, turn: Turn | None = None
) -> Board:
    """Everything the game screen shows, for this actor, from the game's current rows (or from the rows
    an action has just written and committed: its seats and the turn in play)."""
    players = players if players is not None else list(game.players.all())
    if turn is None and not game.is_finished:
        turn = Turn.objects.filter(game=game, completed_at__isnull=True).order_by("number").first()
    current_player = next((p for p in players if turn and p.pk == turn.player_id), None)
    dice_values = tuple(turn.dice) if turn and turn.dice else None
    held = list(turn.held) if turn and turn.dice else [False] * 5
    my_turn = bool(current_player and actor.owns(current_player))

    sheets = {p.pk: p.sheet for p in players}
    current_sheet = sheets[current_player.pk] if current_player else None
    options = current_sheet.options(dice_values) if current_sheet and dice_values else {}
    mine = next((p for p in players if actor.owns(p)), None)
    chosen = turn.chosen_box if turn else ""
    seats = [
        SeatSheet(
            player=p,
            sheet=sheets[p.pk],
            is_current=current_player is not None and p.pk == current_player.pk,
            is_mine=mine is not None and p.pk == mine.pk,
        )
        for p in players
    ]
    rows = [
        SheetRow(
            box=b,
            label=box_label(b),
            cells=[
                Cell(
                    filled=sheets[p.pk].boxes.get(b),
                    option=options.get(b) if current_player and p.pk == current_player.pk else None,
                )
                for p in players
            ],
            my_filled=sheets[mine.pk].boxes.get(b) if mine else None,
            selectable=my_turn and b in options,
            chosen=chosen == b.name,
        )
        for b in Box
    ]

    rolls_used = turn.rolls_used if turn else 0
    bot_playing = bool(current_player and current_player.is_bot)
    next_step_ms = None
    if bot_playing and turn.next_step_at is not None:
        next_step_ms = max(0, int((turn.next_step_at - timezone.now()).total_seconds() * 1000))
    can_hint = mine is not None and game.kind != Game.Kind.FRIENDS and not game.is_finished
    hints_on = can_hint and mine.hints
    hints = None
    if hints_on:
        hints = game_hints(
            sheet=sheets[mine.pk],
            dice_values=dice_values if my_turn else None,
            rolls_used=rolls_used if my_turn else 0,
        )
    return Board(
        game=game,
        turn=turn,
        dice=[
            Die(index=i + 1, value=value, held=bool(held[i]), pips=pips(value))
            for i, value in enumerate(dice_values or (None,) * 5)
        ],
        seats=seats,
        rows=rows,
        my_turn=my_turn,
        rolls_used=rolls_used,
        rolls_left=MAX_ROLLS - rolls_used,
        can_roll=my_turn and rolls_used < MAX_ROLLS and not (dice_values and all(held)),
        can_hold=my_turn and dice_values is not None and rolls_used < MAX_ROLLS,
        can_confirm=my_turn and bool(turn and turn.chosen_box),
        chosen_label=box_label(turn.chosen_box) if turn else "",
        must_sacrifice=bool(my_turn and dice_values and current_sheet.must_sacrifice(dice_values)),
        countdown=turn_auto_commit_remaining(turn) if turn and not turn.chosen_box else None,
        bot_playing=bot_playing,
        next_step_ms=next_step_ms,
        can_hint=can_hint,
        hints_on=hints_on,
        hints=hints,
        my_seat=mine,
        game_url=reverse("dicegame:game", args=[game.pk]),
        deadline_ms=_ms_until(turn.deadline_at) if turn and turn.deadline_at and not bot_playing else None,
        turns=game_turn_log(game=game) if with_log else [],
    )


def _ms_until(moment) -> int:
    return max(0, int((moment - timezone.now()).total_seconds() * 1000))


# -- games against friends: the room before the start, the rematch after the end ---------------------


@dataclass(frozen=True)
class Lobby:
    seats: list[Player]
    free_seats: int
    invited: list  # pending Invitations
    my_invitation: object | None
    is_host: bool
    friends_to_invite: list
    join_path: str
    removed: bool = False  # the viewer was removed from this room by the host

    @property
    def free_seat_slots(self) -> range:
        return range(self.free_seats)


def game_lobby(*, game: Game, actor: Actor) -> Lobby | None:
    if not game.is_open:
        return None
    from django.urls import reverse

    from accounts.selectors import friends_of
    from dicegame.models import Invitation

    seats = list(game.players.all())
    invitations = list(game.invitations.select_related("to_user").filter(status=Invitation.Status.PENDING))
    mine = next((i for i in invitations if actor.user_id is not None and i.to_user_id == actor.user_id), None)
    removed = set(
        game.invitations.filter(status=Invitation.Status.REMOVED).values_list("to_user_id", flat=True)
    )
    seated = {p.user_id for p in seats} | {i.to_user_id for i in invitations} | removed
    seated_me = any(actor.owns(p) for p in seats)
    friends = (
        list(friends_of(user_id=actor.user_id).exclude(pk__in=seated)) if seated_me and actor.user_id else []
    )
    return Lobby(
        seats=seats,
        free_seats=game.seats_wanted - len(seats),
        invited=invitations,
        my_invitation=mine,
        is_host=actor.user_id is not None and game.host_id == actor.user_id,
        friends_to_invite=friends,
        join_path=reverse("dicegame:join", args=[game.invite_token]) if seated_me else "",
        removed=actor.user_id in removed,
    )


@dataclass(frozen=True)
class Rematch:
    accepted: list[str]
    waiting: list[str]
    i_accepted: bool
    lapsed: bool
    game: Game | None


def game_rematch(*, game: Game, actor: Actor) -> Rematch | None:
    if game.kind != Game.Kind.FRIENDS or not game.is_finished or game.finished_at is None:
        return None
    from datetime import timedelta

    humans = [p for p in game.players.all() if not p.is_bot]
    mine = next((p for p in humans if actor.owns(p)), None)
    if mine is None:
        return None
    deadline = game.finished_at + timedelta(minutes=settings.PENTA_REMATCH_MINUTES)
    return Rematch(
        accepted=[p.name for p in humans if p.rematch_accepted],
        waiting=[p.name for p in humans if not p.rematch_accepted],
        i_accepted=mine.rematch_accepted,
        lapsed=timezone.now() > deadline,
        game=Game.objects.filter(rematch_of=game).first(),
    )


def game_turn_log(*, game: Game) -> list[Turn]:
    return list(
        Turn.objects.filter(game=game, completed_at__isnull=False).select_related("player").order_by("number")
    )


# -- history -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HistoryRow:
    game: Game
    me: Player
    opponents: list[Player]

    @property
    def result(self) -> str:
        if not self.game.is_finished:
            return _("In play")
        if not self.opponents:
            return _("Finished")
        if self.me.rank == 1:
            shared = any(o.rank == 1 for o in self.opponents)
            return _("Shared win") if shared else _("Won")
        return _("Place %(rank)d of %(seats)d") % {"rank": self.me.rank, "seats": len(self.opponents) + 1}


def history_page(*, actor: Actor, page: str | int | None) -> Page:
    """The actor's games, newest first, one page at a time (a bad page number gives the nearest page)."""
    seats = Player.objects.filter(_seat_filter(actor)).values("game_id")
    games = (
        Game.objects.filter(pk__in=seats)
        .exclude(status=Game.Status.CANCELLED)
        .prefetch_related(Prefetch("players", queryset=Player.objects.order_by("seat")))
        .order_by("-created_at", "-id")
    )
    paginator = Paginator(games, settings.PENTA_HISTORY_PAGE_SIZE)
    page_obj = paginator.get_page(page)
    rows = []
    for game in page_obj.object_list:
        players = list(game.players.all())
        me = next(p for p in players if actor.owns(p))
        rows.append(HistoryRow(game=game, me=me, opponents=[p for p in players if p.pk != me.pk]))
    page_obj.object_list = rows
    return page_obj
