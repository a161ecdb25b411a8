"""Fair play's reads: the review queue and one case's evidence (staff only), and the rules in words."""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils.formats import number_format
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from core import charts
from dicegame.models import Game
from dicegame.records import STAND_IN_TURN_LIMIT
from fairplay import model as M
from fairplay.models import (
    FEEDER_LOSSES,
    FEEDER_SHARE,
    FEEDERS,
    REFUND_WINDOW,
    WAITING_AS_FED,
    Case,
    GameSignals,
)


def queue():
    """The cases waiting for staff, the strongest evidence first: the flagged accounts (off the boards
    meanwhile), and the accounts found fed by others (on the boards until staff decide)."""
    return (
        Case.objects.filter(Q(status=Case.Status.FLAGGED) | WAITING_AS_FED)
        .select_related("user")
        .order_by("-evidence", "pk")
    )


def seated_game(game_id: int, user) -> Game | None:
    """The game, if `user` has a seat in it; None as well for a game that does not exist, so that the
    two answer alike (no one learns which games exist)."""
    return Game.objects.filter(pk=game_id, players__user=user).distinct().first()


def names(user_ids) -> dict[int, str]:
    """User names by id, for a case's feeders and the account a feeder fed."""
    return dict(get_user_model().objects.filter(pk__in=list(user_ids)).values_list("pk", "username"))


@dataclass(frozen=True)
class GameEvidence:
    game_id: int
    name: str
    finished_at: object
    decisions: int
    best_share: float | None
    loss_per_decision: float | None
    median_seconds: float | None
    time_spread: float | None
    hidden: int
    evidence: float
    suspicious: bool


def _median(values: list[float]) -> float | None:
    values = sorted(values)
    return values[len(values) // 2] if values else None


def game_evidence(case: Case) -> list[GameEvidence]:
    """The account's assessed games, newest first, with their figures."""
    rows = list(
        GameSignals.objects.filter(user_id=case.user_id, version=M.MODEL_VERSION).order_by(
            "-created_at", "-pk"
        )
    )
    games = {g.pk: g for g in Game.objects.filter(pk__in=[r.game_id for r in rows])}
    out = []
    for r in rows:
        game = games[r.game_id]
        out.append(
            GameEvidence(
                game_id=r.game_id,
                name=_("Daily challenge %(date)s") % {"date": game.daily_date.isoformat()}
                if game.daily_date
                else _("Tournament game %(id)s") % {"id": r.game_id}
                if game.dice_key
                else _("Rated game %(id)s") % {"id": r.game_id},
                finished_at=game.finished_at,
                decisions=r.decisions,
                best_share=r.best_share,
                loss_per_decision=r.loss / r.decisions if r.decisions else None,
                median_seconds=_median([p[0] for p in r.points if p[0] is not None]),
                time_spread=r.signals.times.spread,
                hidden=r.hidden,
                evidence=r.evidence,
                suspicious=r.evidence >= M.GAME_EVIDENCE,
            )
        )
    return out


def accuracy_time_chart(games: list[GameEvidence]) -> SafeString:
    """Each game's share of best choices (informative decisions) against its median decision time;
    suspicious games in their own colour. A solver's user sits top right in a tight cluster: always
    best, at one steady pace; honest players spread out."""
    points = [
        (
            g.median_seconds,
            100.0 * g.best_share,
            "suspicious" if g.suspicious else "assessed",
            _("%(name)s: %(best).0f%% best, %(secs).1f s, evidence %(ev).1f")
            % {"name": g.name, "best": 100 * g.best_share, "secs": g.median_seconds, "ev": g.evidence},
        )
        for g in games
        if g.median_seconds is not None and g.best_share is not None
    ]
    # charts.scatter_chart escapes every text it writes.
    return mark_safe(
        charts.scatter_chart(
            points,
            title=_("Accuracy against decision time, per game"),
            desc=_(
                "Each dot is a game: the share of best choices against the median seconds a decision took."
            ),
            x_label=_("median seconds per decision"),
            y_label=_("best choices (%)"),
            y_range=(0.0, 100.0),
        )
    )


def rules() -> dict:
    """The model's numbers, for the fair-play page (in the page's language's number format)."""
    return {
        "margin": number_format(M.MARGIN, 1),
        "allowance": round(100 * M.ALLOWANCE),
        "min_games": M.MIN_SUSPICIOUS_GAMES,
        "min_share": round(100 * M.MIN_SUSPICIOUS_SHARE),
        "flag_evidence": number_format(M.FLAG_EVIDENCE, 0),
        "odds": number_format(round(math.exp(M.FLAG_EVIDENCE), -3), 0, force_grouping=True),
        "feeders": FEEDERS,
        "feeder_losses": FEEDER_LOSSES,
        "feeder_share": round(100 * FEEDER_SHARE),
        "refund_days": REFUND_WINDOW.days,
        "stand_in_limit": STAND_IN_TURN_LIMIT,
    }
