"""The moments a game celebrates, decided by the server: a Penta rolled or scored, a Penta bonus, the
upper bonus reached, and the end of a game (place, total, the player's best before it).

A moment names itself with a key that carries its turn (`penta-12`), so a screen shows each once even
when its region is morphed in place rather than replaced (static/js/moments.js shows the banners)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Max
from django.utils.translation import gettext as _

from dicegame.labels import box_label
from dicegame.models import Game, Player, Turn
from dicegame.records import counted_seats, not_counted_reason, pending_reason
from dicegame.rules.scoring import PENTA_BONUS, PENTA_SCORE, UPPER_BONUS, Box


@dataclass(frozen=True)
class Moment:
    key: str  # unique within the game: the kind and the turn (and roll)
    kind: str  # "penta-rolled", "penta", "penta-bonus", "upper-bonus", "left", "written"
    text: str


def _named(solo: bool, alone: str, named: str, name: str, **values) -> str:
    return (alone % values) if solo else (named % {"name": name, **values})


def board_moments(state, viewer: Player | None = None) -> list[Moment]:
    """What the change behind this board did worth a cheer (`state` is a dicegame.screen.view.BoardState):
    the turns it wrote (`BoardState.written`, kept by play.moves.write) and a Penta on the dice now.
    `viewer`: the seat whose screen it is (the one who left is told in their own words)."""
    solo = len(state.players) == 1
    moments: list[Moment] = []
    for turn, upper_reached in state.written:
        name = turn.player.display_name
        n = turn.number
        if turn.box == Box.PENTA.name and turn.points == PENTA_SCORE:
            moments.append(
                Moment(
                    f"penta-{n}",
                    "penta",
                    _named(solo, _("Penta! 50 points."), _("Penta! 50 points for %(name)s."), name),
                )
            )
        if turn.bonus:
            moments.append(
                Moment(
                    f"penta-bonus-{n}",
                    "penta-bonus",
                    _named(
                        solo,
                        _("Another Penta: a Penta bonus of %(bonus)s!"),
                        _("Another Penta: a Penta bonus of %(bonus)s for %(name)s!"),
                        name,
                        bonus=PENTA_BONUS,
                    ),
                )
            )
        if upper_reached:
            moments.append(
                Moment(
                    f"upper-bonus-{n}",
                    "upper-bonus",
                    _named(
                        solo,
                        _("Upper bonus reached: +%(bonus)s!"),
                        _("Upper bonus reached: +%(bonus)s for %(name)s!"),
                        name,
                        bonus=UPPER_BONUS,
                    ),
                )
            )
        # Last: a banner takes the first moment's colour, and a box written for its player is no cheer.
        if turn.auto_committed or turn.stand_in:
            moments.append(Moment(f"written-{n}", "written", written_for(state, turn, viewer)))
    left = state.game.left_seat
    if left is not None:
        mine = viewer is not None and viewer.pk == left.pk
        text = (
            _("You left the game: the computer plays on for you.")
            if mine
            else _("%(name)s left the game: the computer plays on for them.") % {"name": left.display_name}
        )
        moments.append(Moment(f"left-{left.seat}", "left", text))
    turn, dice = state.turn, state.dice_values
    if turn is not None and dice and len(set(dice)) == 1 and state.current is not None:
        moments.append(
            Moment(
                f"penta-rolled-{turn.number}-{turn.rolls_used}",
                "penta-rolled",
                _named(
                    solo,
                    _("Penta! Five %(face)ss."),
                    _("%(name)s rolled a Penta: five %(face)ss!"),
                    state.current.display_name,
                    face=dice[0],
                ),
            )
        )
    return moments


def written_for(state, turn, viewer: Player | None) -> str:
    """A box the server wrote for its player (the auto-commit, or the computer when a turn's time ran
    out), in words: "Written for you: 4 in Twos" on that player's screen, with their name elsewhere (and
    on the one screen of a local game, which every person shares)."""
    values = {"points": turn.points, "box": box_label(turn.box)}
    mine = viewer is not None and viewer.pk == turn.player_id and state.game.kind != Game.Kind.LOCAL
    if mine:
        return _("Written for you: %(points)s in %(box)s") % values
    return _("Written for %(name)s: %(points)s in %(box)s") % {"name": turn.player.display_name, **values}


def written_note(state, viewer: Player | None) -> str:
    """The turn-status line for the last box this change wrote for its player ("" if none)."""
    turns = [t for t, _reached in state.written if t.auto_committed or t.stand_in]
    return written_for(state, turns[-1], viewer) if turns else ""


def written_for_seat(state, seat: Player) -> bool:
    """This change wrote a box for `seat` (its screen reads "for you", the others' the name)."""
    return any(t.player_id == seat.pk and (t.auto_committed or t.stand_in) for t, _r in state.written)


@dataclass(frozen=True)
class Result:
    """The end of a game for the viewer's seat: their place and total, and their best before it."""

    seat: Player
    place: int
    total: int
    best_before: int | None  # None: no earlier finished game that counts for records
    resigned: bool
    # Why this game does not count for the records ("" when it does: dicegame.records, the one rule).
    not_counted: str = ""

    @property
    def counts(self) -> bool:
        return not self.not_counted

    @property
    def new_best(self) -> bool:
        return self.counts and self.best_before is not None and self.total > self.best_before


def game_result(*, game: Game, seat: Player | None) -> Result | None:
    """The viewer's end of the game (None for a spectator or an unfinished game). Their best is the
    highest total of their earlier finished games that count for records (dicegame.records: the same
    games as the statistics' best total and the leaderboards), so the page and those agree."""
    if seat is None or not game.is_finished or seat.is_bot:
        return None
    earlier = Player.objects.filter(game__status=Game.Status.FINISHED)
    if game.finished_at is None:
        earlier = earlier.none()
    else:
        earlier = earlier.filter(game__finished_at__lt=game.finished_at)
    if seat.user_id is not None:
        earlier = earlier.filter(user_id=seat.user_id)
    elif seat.guest_key:
        earlier = earlier.filter(user__isnull=True, guest_key=seat.guest_key)
    else:
        earlier = earlier.none()
    best = counted_seats(earlier).aggregate(best=Max("total"))["best"]
    stand_ins = Turn.objects.filter(player=seat, stand_in=True).count()
    return Result(
        seat=seat,
        place=seat.rank or 1,
        total=seat.total,
        best_before=best,
        resigned=seat.left_at is not None,
        # A round whose dice are still secret is in no record yet: no "new best" until the round closes.
        not_counted=pending_reason(game) or not_counted_reason(game=game, stand_in_turns=stand_ins),
    )
