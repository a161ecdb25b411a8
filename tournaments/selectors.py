"""Reads of the tournaments: who may see and enter one, its table (matchpoints over the rounds settled,
and who has played the round open now), a round's results, the lists, a player's results.

The one rule: a round's seed leaves this module only once the round has closed (`RoundView.seed`), and
a round's totals only once it is settled, except to an entrant who has finished that round's game
(`round_so_far`)."""

from __future__ import annotations

import datetime as dt
import hmac
from dataclasses import dataclass, field

from django.http import Http404
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from accounts.selectors import friend_ids, off_board_ids
from core.charts import bar_chart
from dicegame.models import Game, Player
from dicegame.rules.share import share_symbols
from tournaments import scoring
from tournaments.eligibility import rated_entry_refusal, rated_entry_rule, rated_min_players
from tournaments.models import Entry, Round, RoundGame, Tournament

HISTOGRAM_BIN = 25  # points per bar of a round's histogram


# -- who may see, who may enter ---------------------------------------------------------------------------


def _token_matches(t: Tournament, token: str) -> bool:
    return bool(token and t.invite_token) and hmac.compare_digest(token.encode(), t.invite_token.encode())


def visible_to(t: Tournament, *, user_id: int | None, token: str = "") -> bool:
    """A public tournament: anyone. By invitation: its creator, its entrants, the creator's friends, and
    whoever holds its link."""
    if t.access == Tournament.Access.PUBLIC or _token_matches(t, token):
        return True
    if user_id is None:
        return False
    if user_id == t.creator_id or Entry.objects.filter(tournament=t, user_id=user_id).exists():
        return True
    return t.creator_id is not None and user_id in friend_ids(user_id=t.creator_id)


def may_enter(t: Tournament, *, user_id: int | None, token: str = "") -> bool:
    """Whoever may see it, logged in (entrants are asked elsewhere: once each)."""
    return user_id is not None and visible_to(t, user_id=user_id, token=token)


def tournament_for_viewer(*, tournament_id: int, user_id: int | None, token: str = "") -> Tournament:
    t = Tournament.objects.select_related("creator").filter(pk=tournament_id).first()
    if t is None or not visible_to(t, user_id=user_id, token=token):
        raise Http404(_("There is no such tournament."))
    return t


def game_viewable(game: Game, user_id: int | None) -> bool:
    """A tournament's game may be seen by whoever may see the tournament, once its round has closed (so
    everyone can check every entrant's dice against the seed then shown); never before."""
    rg = RoundGame.objects.filter(game_id=game.pk).select_related("round__tournament").first()
    if rg is None or not rg.round.is_closed() or not game.is_finished:
        return False
    return visible_to(rg.round.tournament, user_id=user_id)


def standings_group(tournament_id: int) -> str:
    """Every open page of the tournament: its standings."""
    return f"tournament_{tournament_id}"


def round_group(tournament_id: int, number: int) -> str:
    """The open pages of the entrants who have finished the round in play: its results so far."""
    return f"tournament_{tournament_id}_r{number}"


def socket_groups(*, tournament_id: int, user_id: int | None, token: str = "") -> list[str] | None:
    """The groups a page's socket joins (None: the viewer may not see the tournament)."""
    t = Tournament.objects.filter(pk=tournament_id).first()
    if t is None or not visible_to(t, user_id=user_id, token=token):
        return None
    groups = [standings_group(t.pk)]
    now = timezone.now()
    if user_id is not None:
        finished = (
            RoundGame.objects.filter(
                entry__tournament=t,
                entry__user_id=user_id,
                finished_at__isnull=False,
                round__settled_at__isnull=True,
                round__opens_at__lte=now,
                round__closes_at__gt=now,
            )
            .values_list("round__number", flat=True)
            .first()
        )
        if finished is not None:
            groups.append(round_group(t.pk, finished))
    return groups


# -- the rounds -------------------------------------------------------------------------------------------

UPCOMING, OPEN, CLOSING, CLOSED = "upcoming", "open", "closing", "closed"


@dataclass(frozen=True)
class RoundView:
    number: int
    opens_at: dt.datetime
    closes_at: dt.datetime
    state: str  # UPCOMING, OPEN, CLOSING (its window is over, its games are being closed), CLOSED
    commitment: str
    seed: str | None  # None until the round has closed
    dice_key: str
    par: int | None

    @property
    def settled(self) -> bool:
        return self.state == CLOSED


def round_view(r: Round, now: dt.datetime, *, cancelled: bool = False) -> RoundView:
    if r.settled_at is not None:
        state = CLOSED
    elif now >= r.closes_at:
        state = CLOSING
    elif now >= r.opens_at and not cancelled:
        state = OPEN
    else:
        state = UPCOMING
    return RoundView(
        number=r.number,
        opens_at=r.opens_at,
        closes_at=r.closes_at,
        state=state,
        commitment=r.commitment,
        seed=r.seed if r.is_closed(now) else None,
        dice_key=r.dice_key,
        par=r.par,
    )


def entry_open(t: Tournament, rounds: list[Round], now: dt.datetime | None = None) -> bool:
    """Entry closes when the first round closes."""
    now = now or timezone.now()
    first = rounds[0] if rounds else None
    return (
        first is not None
        and t.cancelled_at is None
        and t.finished_at is None
        and first.settled_at is None
        and now < first.closes_at
    )


# -- the table --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """An entrant's round: settled, their percentage and total (None: no game); open, their status."""

    percent: float | None = None
    total: int | None = None
    counted: bool = True  # False: the round's field left them out (withdrawn before it)
    status: str = ""  # the round in play: "finished", "playing" or "waiting"


@dataclass(frozen=True)
class Row:
    entry_id: int
    user_id: int
    name: str
    place: int | None
    cells: tuple[Cell, ...]
    percent: float
    points: int
    vs_par: int | None
    withdrawn: bool
    is_me: bool = False


@dataclass
class Loaded:
    """What every read of one tournament's page needs, in five queries."""

    tournament: Tournament
    rounds: list[Round]
    entries: list[Entry]
    games: dict[tuple[int, int], dict]  # (entry id, round id) -> the RoundGame's values
    off_board: set[int]  # entrants' user ids left out for fair play (as the viewer sees it)
    now: dt.datetime
    views: list[RoundView] = field(default_factory=list)


def load(t: Tournament, *, viewer_id: int | None = None, now: dt.datetime | None = None) -> Loaded:
    now = now or timezone.now()
    rounds = list(Round.objects.filter(tournament=t).order_by("number"))
    entries = list(
        Entry.objects.filter(tournament=t)
        .select_related("user")
        .only("tournament_id", "user_id", "joined_at", "withdrawn_at", "place", "score", "user__username")
        .order_by("user__username")
    )
    games = {
        (g["entry_id"], g["round_id"]): g
        for g in RoundGame.objects.filter(round__tournament=t).values(
            "entry_id", "round_id", "game_id", "total", "finished_at", "started_at"
        )
    }
    users = [e.user_id for e in entries]
    off = set(off_board_ids(viewer_id=viewer_id).filter(user_id__in=users).values_list("user_id", flat=True))
    views = [round_view(r, now, cancelled=t.cancelled_at is not None) for r in rounds]
    return Loaded(t, rounds, entries, games, off, now, views)


def players(data: Loaded) -> set[int]:
    """The entries that have started a round's game (withdrawn since or not), not off the boards: the
    tournament's players. Only they are in the rounds' fields and placed, so an entry that never
    plays gives nobody matchpoints and is not counted in anyone's "of N"."""
    started = {entry_id for entry_id, _round_id in data.games}
    return {e.pk for e in data.entries if e.pk in started and e.user_id not in data.off_board}


def _fields(data: Loaded) -> list[dict[int, int | None]]:
    """The field of every settled round: entry id -> total (None: did not start it). Every player is in
    every round's field (`players`): a round they did not start, before or after withdrawing, scores
    nothing and every entrant who played it beats them, so withdrawing never takes a bad result away."""
    playing = players(data)
    fields = []
    for r in data.rounds:
        if r.settled_at is None:
            break
        counted = {}
        for e in data.entries:
            if e.pk not in playing:
                continue
            g = data.games.get((e.pk, r.pk))
            counted[e.pk] = None if g is None else g["total"] if g["total"] is not None else 0
        fields.append(counted)
    return fields


def table(data: Loaded, *, viewer_id: int | None = None) -> list[Row]:
    """The standings: every entrant not off the boards; the players (`players`) placed by the score over
    the settled rounds, the withdrawn among them, and the entrants who have started no game after them,
    unplaced; with the round in play's status."""
    fields = _fields(data)
    shown = [e for e in data.entries if e.user_id not in data.off_board]
    playing = players(data)
    ranked = [e.pk for e in shown if e.pk in playing]
    lines = scoring.standings(fields, [e.pk for e in shown], ranked)
    by_id = {e.pk: e for e in shown}
    settled = data.rounds[: len(fields)]
    pars = [r.par for r in settled]
    rows = []
    for line in lines:
        e = by_id[line.entrant]
        cells = [Cell(c.percent, c.total) if c is not None else Cell(counted=False) for c in line.rounds]
        for r, v in zip(data.rounds[len(fields) :], data.views[len(fields) :], strict=True):
            g = data.games.get((e.pk, r.pk))
            if v.state != OPEN:
                cells.append(Cell(counted=False, status=v.state))  # upcoming, or closing now
            elif g is None and e.withdrawn_at is not None:
                cells.append(Cell(counted=False))
            else:
                status = "waiting" if g is None else "finished" if g["finished_at"] else "playing"
                cells.append(Cell(status=status))
        in_field = [(c.total or 0, p) for c, p in zip(line.rounds, pars, strict=True) if c is not None]
        vs_par = (
            sum(total - par for total, par in in_field)
            if settled and all(p is not None for _t, p in in_field)
            else None
        )
        rows.append(
            Row(
                entry_id=e.pk,
                user_id=e.user_id,
                name=e.user.get_username(),
                place=line.place if fields else None,
                cells=tuple(cells),
                percent=line.percent,
                points=line.points,
                vs_par=vs_par,
                withdrawn=e.withdrawn_at is not None,
                is_me=e.user_id == viewer_id,
            )
        )
    return rows


def phase(data: Loaded) -> str:
    """Names the tournament's stage: a page whose stage is not the pushed one reloads (a round opened or
    closed: the page's shape changes)."""
    settled = sum(1 for v in data.views if v.settled)
    open_ = next((v.number for v in data.views if v.state == OPEN), 0)
    done = "f" if data.tournament.finished_at else "c" if data.tournament.cancelled_at else "p"
    return f"s{settled}-o{open_}-{done}"


def podium(rows: list[Row]) -> list[Row]:
    return [r for r in rows if r.place is not None and r.place <= 3]


# -- the round in play, for those who have played it -------------------------------------------------------


@dataclass(frozen=True)
class SoFarRow:
    place: int
    name: str
    total: int
    percent: float
    is_me: bool


def round_so_far(data: Loaded, r: Round, *, viewer_id: int | None = None) -> list[SoFarRow]:
    """The finished games of the round in play among themselves: shown only to entrants who have
    finished it (a total says something about the dice)."""
    field = {}
    names = {}
    for e in data.entries:
        g = data.games.get((e.pk, r.pk))
        if e.user_id in data.off_board or g is None or g["finished_at"] is None:
            continue
        field[e.pk] = g["total"] or 0
        names[e.pk] = (e.user.get_username(), e.user_id)
    shares = scoring.round_shares(field)
    rows = [
        SoFarRow(
            1 + sum(1 for other in field.values() if other > total),
            names[pk][0],
            total,
            scoring.percent(shares[pk]),
            names[pk][1] == viewer_id,
        )
        for pk, total in field.items()
    ]
    return sorted(rows, key=lambda row: (row.place, row.name))


# -- a settled round's results ----------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundResult:
    view: RoundView
    histogram: SafeString
    played: int
    best_name: str
    best_total: int | None
    best_game_id: int | None


def round_results(data: Loaded) -> list[RoundResult]:
    out = []
    shown = {e.pk: e for e in data.entries if e.user_id not in data.off_board}
    for r, v in zip(data.rounds, data.views, strict=True):
        if not v.settled:
            continue
        games = [
            g for (entry_id, round_id), g in data.games.items() if round_id == r.pk and entry_id in shown
        ]
        totals = [g["total"] or 0 for g in games]
        best = min(games, key=lambda g: (-(g["total"] or 0), g["finished_at"]), default=None)
        out.append(
            RoundResult(
                view=v,
                histogram=_histogram(totals),
                played=len(games),
                best_name=shown[best["entry_id"]].user.get_username() if best else "",
                best_total=best["total"] if best else None,
                best_game_id=best["game_id"] if best else None,
            )
        )
    return out


def _histogram(totals: list[int]) -> SafeString:
    top = max(totals, default=0)
    counts = [0] * (top // HISTOGRAM_BIN + 1)
    for t in totals:
        counts[t // HISTOGRAM_BIN] += 1
    bars = [(f"{i * HISTOGRAM_BIN}", float(c)) for i, c in enumerate(counts)] if totals else []
    # charts.bar_chart escapes every text it writes (the labels here are numbers anyway).
    return mark_safe(
        bar_chart(
            bars,
            title=_("The round's totals"),
            desc=_("How many entrants scored each range of totals."),
        )
    )


# -- the viewer's share text ------------------------------------------------------------------------------


def share_text(data: Loaded, rows: list[Row], *, viewer_id: int, url: str) -> str:
    """Like the daily's: the tournament, the viewer's place and score, and per settled round the total,
    the par and one square per box (no dice, no points); empty unless the viewer is placed."""
    me = next((r for r in rows if r.user_id == viewer_id and r.place is not None), None)
    if me is None:
        return ""
    ranked = sum(1 for r in rows if r.place is not None)
    lines = [
        _("Penta tournament “%(name)s”: %(place)s of %(of)s (%(score)s%%)")
        % {"name": data.tournament.title, "place": me.place, "of": ranked, "score": f"{me.percent:.1f}"}
    ]
    game_ids = [g["game_id"] for (entry_id, _r), g in data.games.items() if entry_id == me.entry_id]
    boxes = dict(Player.objects.filter(game_id__in=game_ids, seat=0).values_list("game_id", "boxes"))
    for r, v in zip(data.rounds, data.views, strict=True):
        if not v.settled:
            continue
        g = data.games.get((me.entry_id, r.pk))
        total = g["total"] or 0 if g else 0
        par = "" if r.par is None else " " + _("(par %(par)d)") % {"par": r.par}
        squares = share_symbols(boxes.get(g["game_id"], {}) if g else {})
        lines.append(_("R%(round)d: %(total)d") % {"round": r.number, "total": total} + par + " " + squares)
    lines.append(url)
    return "\n".join(lines)


# -- a tournament's page ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Page:
    """Everything a tournament's page shows to one viewer."""

    data: Loaded
    rows: list[Row]
    phase: str
    results: list[RoundResult]
    podium: list[Row]
    entry: Entry | None
    entry_open: bool
    may_enter: bool
    played_any: bool
    open_round: Round | None
    my_game: dict | None  # the viewer's game of the round open now (its RoundGame's values)
    next_round: RoundView | None
    so_far: list[SoFarRow] | None  # the round in play among those who finished it, for one of them
    friend_rows: list[tuple[int | None, Row]]  # (the place among them, the row)
    friend_ids: list[int]
    share_text: str
    live: bool  # the page holds the standings' socket
    player_count: int  # the entrants who have started a round's game (`players`)
    # Why the viewer may not enter this rated tournament ("" when they may, or it is not offered).
    entry_refusal: str = ""

    @property
    def rated_min(self) -> int:
        return rated_min_players()

    @property
    def rated_entry_rule(self) -> str:
        return rated_entry_rule().text()

    @property
    def below_rated_min(self) -> bool:
        """A rated tournament that fewer than `rated_min_players` have played (so far, or in the end): it
        does not count for its players' pages."""
        return self.data.tournament.rated and self.player_count < rated_min_players()


def page(t: Tournament, *, viewer_id: int | None, token: str = "", share_url: str = "", viewer=None) -> Page:
    """`viewer`: the logged-in person (for whether they may enter a rated tournament), else None."""
    data = load(t, viewer_id=viewer_id)
    rows = table(data, viewer_id=viewer_id)
    entry = next((e for e in data.entries if e.user_id == viewer_id), None)
    open_round = next((r for r, v in zip(data.rounds, data.views, strict=True) if v.state == OPEN), None)
    my_game = data.games.get((entry.pk, open_round.pk)) if entry and open_round else None
    friends = friend_ids(user_id=viewer_id) | {viewer_id} if viewer_id else set()
    circle = [r for r in rows if r.user_id in friends]
    # The place among friends: one more than the friends placed better overall (ties stay ties).
    friend_rows = [
        (
            None
            if r.place is None
            else 1 + sum(1 for o in circle if o.place is not None and o.place < r.place),
            r,
        )
        for r in circle
    ]
    # A viewer under review sees the table with themselves in it (as everywhere); the pushes, made for
    # everyone, would drop them and tell them, so their page holds no socket.
    off = viewer_id is not None and off_board_ids().filter(user_id=viewer_id).exists()
    return Page(
        data=data,
        rows=rows,
        phase=phase(data),
        results=round_results(data),
        podium=podium(rows) if t.finished_at else [],
        entry=entry,
        entry_open=entry_open(t, data.rounds, data.now),
        may_enter=may_enter(t, user_id=viewer_id, token=token),
        played_any=entry is not None and any(key[0] == entry.pk for key in data.games),
        open_round=open_round,
        my_game=my_game,
        next_round=next((v for v in data.views if v.state == UPCOMING), None),
        so_far=round_so_far(data, open_round, viewer_id=viewer_id)
        if my_game is not None and my_game["finished_at"] is not None
        else None,
        friend_rows=friend_rows if any(r.user_id != viewer_id for r in circle) else [],
        friend_ids=sorted(friends),
        share_text=share_text(data, rows, viewer_id=viewer_id, url=share_url)
        if t.finished_at and viewer_id
        else "",
        live=not off,
        player_count=len(players(data)),
        entry_refusal=rated_entry_refusal(viewer)
        if t.rated and viewer is not None and entry is None and entry_open(t, data.rounds, data.now)
        else "",
    )
