"""A player's history for a test: finished games with given sheets (`stats_game`, `sheet_with`), and
thousands of them in bulk (`bulk_history`) for the bounded-query and timing checks."""

from __future__ import annotations

import datetime as dt
import random
from datetime import timedelta

from django.utils import timezone

from daily.models import DailyAttempt
from dicegame.models import Game, GameAnalysis, Player
from dicegame.rules import dice
from dicegame.rules.scoring import Box, Scoresheet
from dicegame.strategy import analysis as A
from tests.support.factories import (
    GameFactory,
    PlayerFactory,
)

UPPER_CHOICES = {b: [b.face * k for k in range(6)] for b in Box if b.is_upper}


LOWER_CHOICES = {
    Box.THREE_OF_A_KIND: [0, *range(5, 31)],
    Box.FOUR_OF_A_KIND: [0, *range(5, 31)],
    Box.FULL_HOUSE: [0, 25],
    Box.SMALL_STRAIGHT: [0, 30],
    Box.LARGE_STRAIGHT: [0, 40],
    Box.CHANCE: list(range(5, 31)),
    Box.PENTA: [0, 50],
}


def random_sheet(rng: random.Random) -> Scoresheet:
    boxes = {b: rng.choice(c) for b, c in {**UPPER_CHOICES, **LOWER_CHOICES}.items()}
    bonus = 100 * rng.choice([0, 0, 0, 1]) if boxes[Box.PENTA] == 50 else 0
    return Scoresheet(boxes, bonus)


def bulk_history(
    user, n: int, *, seed: int = 0, opponent=None, analysed: bool = False, kinds=None
) -> list[Game]:
    """`n` finished games of the user (kinds cycling solo / computer / friends), built with bulk_create:
    sheets with their totals and ranks, no turn log (a game without turns analyses as empty)."""
    rng = random.Random(seed)
    kinds = kinds or [Game.Kind.SOLO, Game.Kind.COMPUTER, Game.Kind.FRIENDS]
    now = timezone.now()
    seed_hex = dice.new_seed()
    games = Game.objects.bulk_create(
        [
            Game(
                kind=kinds[i % len(kinds)],
                status=Game.Status.FINISHED,
                seed=seed_hex,
                seed_commitment=dice.commitment(seed_hex),
                finished_at=now - timedelta(minutes=n - i),
            )
            for i in range(n)
        ]
    )
    players = []
    for game in games:
        seats = (
            [user]
            if game.kind == Game.Kind.SOLO
            else [user, opponent if game.kind == Game.Kind.FRIENDS else None]
        )
        sheets = [random_sheet(rng) for _ in seats]
        totals = [s.total for s in sheets]
        for seat, (who, sheet) in enumerate(zip(seats, sheets, strict=True)):
            p = Player(
                game=game,
                seat=seat,
                user=who,
                bot_strength="" if who is not None else "medium",
                name=who.username if who else "Computer",
                rank=1 + sum(1 for t in totals if t > sheet.total),
            )
            p.store_sheet(sheet)
            players.append(p)
    Player.objects.bulk_create(players)
    if analysed:
        GameAnalysis.objects.bulk_create(
            [
                GameAnalysis(
                    game=g,
                    version=A.ANALYSIS_VERSION,
                    data={},
                    summary={
                        str(s): {
                            "loss": 12.0 + s,
                            "decisions": 30,
                            "counts": {"best": 20, "inaccuracy": 10},
                            "turns": 13,
                            "luck": -3.0 + s,
                            "accuracy": A.accuracy(12.0 + s, 13),
                            "box_loss": {"CHANCE": 9.0 + s, "ONES": 3.0},
                        }
                        for s in range(2)
                    },
                )
                for g in games
            ]
        )
    return games


def stats_game(user, kind, total_boxes: dict, penta_bonus=0, others=(), finished_at=None) -> Game:
    """One finished game with exactly these boxes for the user and the given totals for the others."""
    game = Game.objects.create(
        kind=kind,
        status=Game.Status.FINISHED,
        seed="0" * 64,
        seed_commitment="",
        finished_at=finished_at or timezone.now(),
    )
    mine = Scoresheet(total_boxes, penta_bonus)
    totals = [mine.total, *(t for _u, t in others)]
    p = Player(game=game, seat=0, user=user, name=user.username, rank=1 + sum(t > mine.total for t in totals))
    p.store_sheet(mine)
    p.save()
    for seat, (who, total) in enumerate(others, start=1):
        Player.objects.create(
            game=game,
            seat=seat,
            user=who,
            bot_strength="" if who else "easy",
            name=who.username if who else "Computer",
            total=total,
            rank=1 + sum(t > total for t in totals),
        )
    return game


FULL = {b: 0 for b in Box}


def sheet_with(**points) -> dict:
    return {**FULL, **{Box[k]: v for k, v in points.items()}}


def made_up_result(user, date: dt.date, total: int, *, ranked=True, boxes=None) -> DailyAttempt:
    game = GameFactory(daily_date=date, status=Game.Status.FINISHED, finished_at=timezone.now())
    PlayerFactory(game=game, user=user, total=total, boxes=boxes or {})
    return DailyAttempt.objects.create(date=date, game=game, user=user, ranked=ranked)
