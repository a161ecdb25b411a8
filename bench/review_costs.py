"""Benchmark: what a finished game's review costs to compute, and the accuracy of the computer players.

Timing (the default). For R finished 4-player games (bots of every strength playing the server's dice
recipe), with the strategy's per-state cache emptied before each measurement (as for the first analysis
after a game ends in a fresh process), it times:

- decisions + luck + accuracy: `analyse_game` without the seed (every decision's loss, every roll's
  luck, the per-seat sums and accuracy: one pass);
- the optimal replay: `optimal_line` for the four seats;
- the whole analysis as the server stores it (`analyse_game` with the seed: both of the above).

It prints median and p90 in milliseconds per part, and the share of the whole the luck and the
optimal replay add to the decisions alone (the analysis before luck, timed by summing the luck out is
not possible; the decisions-only pass is the same loop, so the comparison is the optimal replay's).

Calibration (`--calibrate N`): N solo games of each computer strength on the dice seed
simulate.seed_from_number(2026), each analysed; prints per strength the accuracy's median, mean and
quartiles, the loss per turn, the mean luck and the mean total. The figures shown on the statistics
page (`review.stats.BOT_ACCURACY`) come from this.

    .venv/bin/python bench/review_costs.py [--games R] [--calibrate N] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dicegame.strategy import Strategy, bot_games  # noqa: E402
from dicegame.strategy import analysis as A  # noqa: E402
from dicegame.strategy.simulate import seed_from_number  # noqa: E402

LINE_UP = ["hard", "medium", "easy", "medium"]


def bot_game(strengths: list[str], seed: str, game: int) -> list[A.TurnLog]:
    """A whole game of bots in seat order with the server's dice recipe, as the stored turn log."""
    return bot_games.bot_game(strengths, seed, game).logs


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def timing(games: int) -> dict:
    strategy = Strategy.shared()
    parts: dict[str, list[float]] = {
        "decisions+luck+accuracy": [],
        "optimal replay": [],
        "whole analysis": [],
    }
    for g in range(games):
        seed = seed_from_number(7000 + g)
        logs = bot_game(LINE_UP, seed, g)
        seats = range(len(LINE_UP))

        strategy._turn.cache_clear()
        t = time.perf_counter()
        A.analyse_game(logs, seats, strategy)
        parts["decisions+luck+accuracy"].append(time.perf_counter() - t)

        strategy._turn.cache_clear()
        t = time.perf_counter()
        for seat in seats:
            A.optimal_line(strategy, seed, g, seat=seat, seat_count=len(LINE_UP))
        parts["optimal replay"].append(time.perf_counter() - t)

        strategy._turn.cache_clear()
        t = time.perf_counter()
        A.analyse_game(logs, seats, strategy, seed=seed, game=g)
        parts["whole analysis"].append(time.perf_counter() - t)
    out = {}
    for name, values in parts.items():
        ms = [v * 1000 for v in values]
        out[name] = {"median_ms": round(statistics.median(ms), 1), "p90_ms": round(p90(ms), 1)}
        print(f"{name:>26}: median {out[name]['median_ms']:7.1f} ms   p90 {out[name]['p90_ms']:7.1f} ms")
    whole = out["whole analysis"]["median_ms"]
    print(f"{'optimal replay / whole':>26}: {out['optimal replay']['median_ms'] / whole:.2f}")
    verdict = "met" if whole < 100 else "NOT met"
    print(f"target: whole analysis of a finished 4-player game under 100 ms: {verdict}")
    return out


def calibrate(games: int) -> dict:
    strategy = Strategy.shared()
    seed = seed_from_number(2026)
    out = {}
    for strength in ("hard", "medium", "easy"):
        accs, losses, lucks, totals = [], [], [], []
        for g in range(games):
            data = A.analyse_game(bot_game([strength], seed, g), [0], strategy)
            seat = data["seats"]["0"]
            accs.append(seat["accuracy"])
            losses.append(seat["summary"]["loss"] / max(1, seat["summary"]["turns"]))
            lucks.append(seat["luck"])
            totals.append(seat["final"])
        q = statistics.quantiles(accs, n=4)
        out[strength] = {
            "games": games,
            "accuracy_median": round(statistics.median(accs), 1),
            "accuracy_mean": round(statistics.fmean(accs), 1),
            "accuracy_quartiles": [round(q[0], 1), round(q[2], 1)],
            "loss_per_turn": round(statistics.fmean(losses), 3),
            "luck_mean": round(statistics.fmean(lucks), 2),
            "total_mean": round(statistics.fmean(totals), 1),
        }
        print(strength, json.dumps(out[strength]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=15, help="4-player games timed")
    parser.add_argument("--calibrate", type=int, default=0, help="solo games per strength for accuracy")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "penta.settings_test")
    figures = {"timing": timing(args.games)}
    if args.calibrate:
        figures["calibration"] = calibrate(args.calibrate)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
