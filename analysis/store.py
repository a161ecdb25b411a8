"""The stored analysis of a finished game (`GameAnalysis`): computed once, read by the review, the
statistics, the export, the daily and the puzzles. The analysis itself is `dicegame.strategy.analysis`
(pure). A game is analysed once it is finished (the review subscribes to finished games); whatever
asks first computes what is missing."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from core import versions
from dicegame import events
from dicegame.models import Game, GameAnalysis, Player, Turn
from dicegame.strategy import analysis as A


class ReviewError(Exception):
    """A review request that cannot be answered; `status` is the HTTP status."""

    def __init__(self, message: str, *, status: int = 409):
        super().__init__(message)
        self.message = message
        self.status = status


# -- the stored analysis -----------------------------------------------------------------------------


def _turn_logs(turns: Iterable[dict], seat_of: dict[int, int]) -> list[A.TurnLog]:
    return [
        A.TurnLog(
            number=t["number"],
            round=t["round"],
            seat=seat_of[t["player_id"]],
            rolls=t["rolls"] or [],
            box=t["box"],
            points=t["points"],
            bonus=t["bonus"],
            auto_committed=t["auto_committed"],
            stand_in=t["stand_in"],
        )
        for t in turns
    ]


_TURN_FIELDS = ("game_id", "player_id", "number", "round", "rolls", "box", "points", "bonus")
_TURN_FLAGS = ("auto_committed", "stand_in")


def completed_turns(game_ids: Iterable[int]) -> dict[int, list[dict]]:
    by_game: dict[int, list[dict]] = {}
    rows = (
        Turn.objects.filter(game_id__in=list(game_ids), completed_at__isnull=False)
        .order_by("game_id", "number")
        .values(*_TURN_FIELDS, *_TURN_FLAGS)
    )
    for row in rows:
        by_game.setdefault(row["game_id"], []).append(row)
    return by_game


def compute_analysis(game: Game, players: list[Player], turns: list[dict]) -> dict:
    seat_of = {p.pk: p.seat for p in players}
    # With the seed (revealed now the game is over), the optimal player replays each seat's own dice.
    return A.analyse_game(
        _turn_logs(turns, seat_of), [p.seat for p in players], seed=game.seed, game=game.dice_namespace
    )


def _people(players: Iterable[Player]) -> list[int]:
    return [p.user_id for p in players if not p.bot_strength and p.user_id is not None]


def _store(game: Game, data: dict, people: list[int] | None = None) -> GameAnalysis:
    summary = A.summaries(data)
    if people is None:
        people = _people(game.players.all())
    try:
        with transaction.atomic():
            obj, created = GameAnalysis.objects.get_or_create(
                game=game, defaults={"version": A.ANALYSIS_VERSION, "data": data, "summary": summary}
            )
            if created:  # the people's statistics now count it (core.versions)
                versions.bump(*versions.game_names(game, people))
                events.publish(events.GamesAnalysed((game.pk,)))
    except IntegrityError:  # a concurrent first view stored it between our get and create
        obj, created = GameAnalysis.objects.get(game=game), False
    if not created and obj.version != A.ANALYSIS_VERSION:
        with transaction.atomic():
            obj.version, obj.data, obj.summary = A.ANALYSIS_VERSION, data, summary
            obj.save(update_fields=["version", "data", "summary"])
            versions.bump(*versions.game_names(game, people))
            events.publish(events.GamesAnalysed((game.pk,)))
    return obj


def analysis_for(game: Game) -> GameAnalysis:
    """The game's analysis: read if stored (and current), else computed now and stored. Finished
    games only (ReviewError 409 otherwise); a log that cannot be replayed is ReviewError 422."""
    if not game.is_finished:
        raise ReviewError(_("This game is not finished yet: it can be reviewed once it is over."))
    stored = GameAnalysis.objects.filter(game=game).first()
    if stored is not None and stored.version == A.ANALYSIS_VERSION:
        return stored
    players = list(game.players.all())
    turns = completed_turns([game.pk]).get(game.pk, [])
    try:
        data = compute_analysis(game, players, turns)
    except A.AnalysisError as exc:
        raise ReviewError(
            _("This game's log cannot be replayed, so it cannot be analysed (%(reason)s).") % {"reason": exc},
            status=422,
        ) from exc
    return _store(game, data, _people(players))


def analyse_pending(game_ids: list[int]) -> int:
    """Analyse these finished games (those without a current analysis) in a few queries; a game whose
    log cannot be replayed is skipped. Returns how many were stored."""
    if not game_ids:
        return 0
    games = list(
        Game.objects.filter(pk__in=game_ids, status=Game.Status.FINISHED)
        .exclude(analysis__version=A.ANALYSIS_VERSION)
        .prefetch_related("players")
    )
    turns = completed_turns(g.pk for g in games)
    fresh, stale = [], []
    stale_ids = set(
        GameAnalysis.objects.filter(game__in=games).values_list("game_id", flat=True)
    )  # older versions
    changed: set[str] = set()
    for game in games:
        players = list(game.players.all())
        try:
            data = compute_analysis(game, players, turns.get(game.pk, []))
        except A.AnalysisError:
            continue
        row = GameAnalysis(game=game, version=A.ANALYSIS_VERSION, data=data, summary=A.summaries(data))
        (stale if game.pk in stale_ids else fresh).append(row)
        changed |= versions.game_names(game, _people(players))
    GameAnalysis.objects.bulk_create(fresh, ignore_conflicts=True)
    for row in stale:
        GameAnalysis.objects.filter(game=row.game).update(
            version=row.version, data=row.data, summary=row.summary
        )
    # After them: the people's statistics count them from now on (core.versions).
    versions.bump(*changed)
    stored = tuple(row.game.pk for row in fresh + stale)
    if stored:
        events.publish(events.GamesAnalysed(stored))
    return len(stored)
