"""A finished game as JSON (everything needed to check it) and a player's history as CSV."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from django.db.models import Count, OuterRef, Q, Subquery
from django.utils import translation
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from analysis.store import ReviewError, analysis_for, completed_turns
from dicegame.models import Game, Player
from dicegame.records import counts_for_records, revealed_seats, seat_left, secret_until, stand_in_turns
from dicegame.rules.days import day_end
from dicegame.rules.scoring import Box
from dicegame.strategy import analysis as A
from review.replay import without_the_dice

if TYPE_CHECKING:  # only a type here: importing services would make review and services import each other
    from dicegame.actors import Actor


def game_export(*, game: Game) -> dict:
    """A finished game as JSON-ready data: seats, every roll, hold and box, the seed, the analysis."""
    if not game.is_finished:
        raise ReviewError(_("This game is not finished yet: its dice seed is still secret."))
    stored = analysis_for(game)
    players = list(game.players.all())
    turns = completed_turns([game.pk]).get(game.pk, [])
    # Seats are numbered from 1, as people read them (and as the CSV export numbers them).
    seat_of = {p.pk: p.seat + 1 for p in players}
    # A daily challenge's seed deals everyone's dice of the day (a tournament round's, every entrant's):
    # until the day (the round) ends the export names it and its commitment, and leaves out the seed and
    # the optimal line (dice the player never saw).
    seed_secret_until = game.seed_secret_until
    seats = {str(int(seat) + 1): v for seat, v in (stored.data.get("seats") or {}).items()}
    if seed_secret_until is not None:
        seats = {
            n: {**v, "optimal": {"total": v["optimal"]["total"]} if v.get("optimal") else None}
            for n, v in seats.items()
        }
    # A tournament round's results are secret until it closes, even to the entrant who has finished it:
    # nothing the dice decide beyond the entrant's own play (the par, the luck) leaves before then.
    results_secret_until = secret_until(game)
    if results_secret_until is not None:
        seats = {n: without_the_dice(v) for n, v in seats.items()}
    return {
        "format": "penta-game/2",
        "game": game.pk,
        "kind": game.kind,
        "created_at": game.created_at.isoformat(),
        "finished_at": game.finished_at.isoformat() if game.finished_at else None,
        "seed": None if seed_secret_until is not None else game.seed,
        # A tournament round still open: when the par, the luck and the optimal line come (else null).
        "results_secret_until": results_secret_until.isoformat() if results_secret_until else None,
        "seed_commitment": game.seed_commitment,
        "daily": {
            "date": game.daily_date.isoformat(),
            "commitment": game.seed_commitment,
            "recipe_game": game.dice_namespace,  # the recipe's {game}: the date, the same for everyone
            "seed_revealed_at": day_end(game.daily_date).isoformat(),
        }
        if game.daily_date
        else None,
        # Any other game on shared dice (a tournament round): the recipe's {game} its players share, and
        # when the seed, everyone's, is revealed.
        "shared_dice": {
            "recipe_game": game.dice_namespace,
            "commitment": game.seed_commitment,
            "seed_revealed_at": game.shared_until.isoformat() if game.shared_until else None,
        }
        if game.dice_key
        else None,
        "dice_recipe": (
            "HMAC-SHA256(seed, 'penta/v1/{game}/{turn}/{roll}/{die}/{attempt}'), see docs/fair-dice.md"
        ),
        "hints_used": game.hints_used,
        "players": [
            {
                "seat": p.seat + 1,
                "name": p.display_name,
                "computer": p.bot_strength or None,
                "boxes": p.boxes,
                "penta_bonus": p.penta_bonus,
                "total": p.total,
                "rank": p.rank,
            }
            for p in players
        ],
        "turns": [
            {
                "number": t["number"],
                "round": t["round"],
                "seat": seat_of[t["player_id"]],
                "rolls": t["rolls"],
                "box": t["box"],
                "points": t["points"],
                "bonus": t["bonus"],
                "auto_committed": t["auto_committed"],
                "stand_in": t["stand_in"],
            }
            for t in turns
        ],
        "analysis": {
            "version": stored.version,
            "thresholds": stored.data.get("thresholds"),
            # Per seat: V(start), luck, total_loss, adjusted (V(start) - total loss), accuracy, final
            # (final = start + luck - total_loss), and "optimal": the optimal player on the seat's dice.
            "seats": seats,
            "accuracy_scale": A.ACCURACY_SCALE,
            "rolls": [
                {
                    "turn": t["number"],
                    "roll": k,
                    "dice": r["dice"],
                    "luck": None if results_secret_until else r.get("luck"),
                }
                for t in stored.data.get("turns", [])
                for k, r in enumerate(t["rolls"], start=1)
            ],
            "decisions": [
                {
                    "turn": t["number"],
                    **{k: d[k] for k in ("kind", "roll", "chosen", "best", "cost", "label")},
                }
                for t in stored.data.get("turns", [])
                for d in t["decisions"]
            ],
        },
    }


CSV_HEADER = [
    "game",
    "created_at",
    "finished_at",
    "kind",
    "status",
    "seat",
    "players",
    "opponents",
    "total",
    "rank",
    "result",
    "upper_total",
    "upper_bonus",
    "penta_bonus",
    *(b.name.lower() for b in Box),
    "hints_used",
    "counts_for_records",  # dicegame.records' rule: 0 for hints, a local game, > 2 stand-in turns, unfinished
]


def _csv_cell(value: Any) -> Any:
    """Text that a spreadsheet would run as a formula is prefixed with an apostrophe."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def _seat_filter(actor: Actor) -> Q:
    q = Q(pk__in=[])
    if actor.user_id is not None:
        q |= Q(user_id=actor.user_id)
    if actor.guest_key:
        q |= Q(guest_key=actor.guest_key, user__isnull=True)
    # Every person's column of the local games the actor created on their device (dicegame.play.local).
    if actor.user_id is not None:
        q |= Q(controller_id=actor.user_id)
    if actor.guest_key:
        q |= Q(controller_guest_key=actor.guest_key, controller__isnull=True)
    return q


def history_csv(*, actor: Actor) -> Iterator[str]:
    """The actor's games, oldest first, as CSV lines (streamed: any number of games). Cancelled and
    expired rooms were never played and are left out. Computer players are named in the language active
    now (the lines are written after the view has returned)."""
    return _history_csv(actor, get_language())


def _history_csv(actor: Actor, language: str | None) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer)

    def flush() -> str:
        text = buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        return text

    writer.writerow(CSV_HEADER)
    yield flush()
    # A game whose dice are still secret (a tournament round still open) is in no record: its line comes
    # once the round has closed (dicegame.records).
    mine = revealed_seats(
        Player.objects.filter(_seat_filter(actor)).exclude(
            game__status__in=[Game.Status.CANCELLED, Game.Status.EXPIRED]
        )
    )
    seats = (
        mine.select_related("game")
        .annotate(
            players=Subquery(
                Player.objects.filter(game_id=OuterRef("game_id"))
                .values("game_id")
                .annotate(n=Count("pk"))
                .values("n")[:1]
            ),
            stand_in_turns=stand_in_turns(),
        )
        .order_by("game__created_at", "game_id")
    )
    opponents: dict[int, list[Player]] = {}
    # A local game has a row per person's column, each against all the others; any other game has one
    # row (the actor's seat) against everyone else.
    others = (
        Player.objects.filter(game_id__in=mine.values("game_id"))
        .order_by("game_id", "seat")
        .only("game_id", "seat", "name", "bot_strength", "total", "left_at", "stand_in")
    )
    for other in others.iterator(chunk_size=5000):
        opponents.setdefault(other.game_id, []).append(other)
    for p in seats.iterator(chunk_size=2000):
        sheet = p.sheet
        game = p.game
        others = [o for o in opponents.get(game.pk, []) if o.seat != p.seat]
        at_table = [o for o in others if not seat_left(o)]
        place = 1 + sum(1 for o in at_table if o.total > p.total)
        if not game.is_finished:
            with translation.override(language):
                result = str(game.get_status_display())
        elif p.left_at is not None and game.kind != Game.Kind.FRIENDS:
            result = "resigned"
        elif not others:
            result = "finished"
        elif seat_left(p):
            result = "left"  # a loss against everyone still at the table
        elif place == 1:
            result = "win"
        else:
            result = f"place {place}"
        with translation.override(language):
            names = "; ".join(o.display_name for o in others)
        writer.writerow(
            [
                game.pk,
                game.created_at.isoformat(),
                game.finished_at.isoformat() if game.finished_at else "",
                game.kind,
                game.status,
                p.seat + 1,
                p.players,
                _csv_cell(names),
                p.total,
                p.rank if p.rank is not None else "",
                result,
                sheet.upper_total,
                sheet.upper_bonus,
                sheet.penta_bonus,
                *(sheet.boxes.get(b, "") for b in Box),
                int(game.hints_used),
                int(counts_for_records(game=game, stand_in_turns=p.stand_in_turns)),
            ]
        )
        yield flush()
