"""Playing to win, in figures: the winner against the expected-total computer, the field-aware play in
a daily field, the decision time, and what exact tables would cost and add.

    nice -n 10 .venv/bin/python bench/play_to_win.py --games 20000 --players 2      # win rate, 95% interval
    nice -n 10 .venv/bin/python bench/play_to_win.py --games 5000 --players 3       # against two
    nice -n 10 .venv/bin/python bench/play_to_win.py --days 2000 --field 1000       # the daily field
    nice -n 10 .venv/bin/python bench/play_to_win.py --estimate                     # exact tables: cost
    nice -n 10 .venv/bin/python bench/play_to_win.py --small-cases 4000 --boxes 3   # exact tables: gain

Every game is seeded (`--seed`) and played on the server's dice recipe (dicegame.rules.dice), so a run
is repeatable. The winner sits in seat g mod K of game g (no seat is favoured); a tie for first is
shared. The win tables must be built (`manage.py build_strategy --win-tables`). Decision times are the
winner's own calls (`choose_keep`, `choose_box`), each turn's first one included (it does the turn's
work; the next ones reuse it).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dicegame.rules.dice import roll_dice
from dicegame.rules.scoring import Box, Scoresheet
from dicegame.strategy import Bot, Strategy, win_tables
from dicegame.strategy import winner as W
from dicegame.strategy.simulate import held_flags, seed_from_number


class Timed:
    """A player whose decisions are timed."""

    def __init__(self, bot, times: list[float] | None):
        self.bot, self.times = bot, times

    def keep(self, sheet, dice, left, opponents):
        t = time.perf_counter()
        out = self.bot.choose_keep(sheet, dice, left, opponents=opponents)
        if self.times is not None:
            self.times.append(time.perf_counter() - t)
        return out

    def box(self, sheet, dice, opponents):
        t = time.perf_counter()
        out = self.bot.choose_box(sheet, dice, opponents=opponents)
        if self.times is not None:
            self.times.append(time.perf_counter() - t)
        return out


def play_turn(
    player: Timed, sheets: list[Scoresheet], seat: int, seed: str, game: int, number: int
) -> Scoresheet:
    sheet = sheets[seat]
    others = [s for i, s in enumerate(sheets) if i != seat]
    dice = roll_dice(seed, game, number, 1, None, (False,) * 5)
    for roll in (2, 3):
        keep = player.keep(sheet, dice, 4 - roll, others)
        if len(keep) == 5:
            break
        dice = roll_dice(seed, game, number, roll, dice, held_flags(dice, keep))
    return sheet.place(player.box(sheet, dice, others), dice)


def play_game(
    players: list[Timed], seed: str, game: int, sheets: list[Scoresheet] | None = None
) -> list[int]:
    """The final totals of one game (seat order), from `sheets` (default: empty)."""
    sheets = list(sheets) if sheets is not None else [Scoresheet() for _ in players]
    number = 0
    while not all(s.is_complete for s in sheets):
        for seat, player in enumerate(players):
            number += 1
            if not sheets[seat].is_complete:
                sheets[seat] = play_turn(player, sheets, seat, seed, game, number)
    return [s.total for s in sheets]


def share(totals: list[int], seat: int) -> float:
    best = max(totals)
    return (totals[seat] == best) / sum(t == best for t in totals)


def interval(shares: list[float]) -> tuple[float, float, float]:
    """Mean and its 95% interval (normal; the shares are 0, 1/k or 1)."""
    n = len(shares)
    mean = sum(shares) / n
    sd = statistics.pstdev(shares) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def times_line(times: list[float]) -> str:
    ms = np.array(times) * 1000
    return (
        f"decision median {np.median(ms):.2f} ms, p99 {np.percentile(ms, 99):.2f} ms, max {ms.max():.1f} ms"
    )


def bench_games(games: int, seats: int, seed: int, report: int) -> None:
    strategy = Strategy.shared()
    tables = win_tables.load()
    times: list[float] = []
    winner = Timed(Bot("winner", strategy, tables), times)
    hard = Timed(Bot("hard", strategy), None)
    shares, paired = [], []
    start = time.perf_counter()
    for g in range(games):
        seat = g % seats
        dice = seed_from_number(seed * 1_000_003 + g)
        totals = play_game([winner if i == seat else hard for i in range(seats)], dice, g)
        shares.append(share(totals, seat))
        # The same game with the expected-total computer in the winner's seat: on the same dice, most
        # of the luck cancels out of the difference (its expected share is the fair one, 1 / seats).
        control = play_game([hard] * seats, dice, g)
        paired.append(1 / seats + shares[-1] - share(control, seat))
        if report and (g + 1) % report == 0:
            print(_games_line(shares, paired, g + 1, time.perf_counter() - start), flush=True)
    print(f"winner against {seats - 1} expected-total computer(s); fair share {1 / seats:.4f}")
    print(_games_line(shares, paired, games, time.perf_counter() - start))
    print(times_line(times))


def _games_line(shares: list[float], paired: list[float], games: int, seconds: float) -> str:
    mean, lo, hi = interval(shares)
    pmean, plo, phi = interval(paired)
    return (
        f"{games} games: win rate {mean:.4f}, 95% interval [{lo:.4f}, {hi:.4f}]; paired with the same "
        f"dice: {pmean:.4f} [{plo:.4f}, {phi:.4f}]  ({seconds:.0f} s)"
    )


def bench_field(days: int, field_size: int, seed: int, report: int) -> None:
    """Each day: the field-aware player and the expected-total player on the same dice; the field,
    `field_size` totals drawn from the expected-total play's distribution of final totals (what the
    field-aware play assumes of it). Place = 1 + the field above + half the field level."""
    strategy = Strategy.shared()
    tables = win_tables.load()
    field_pmf = W.final_totals(tables, Scoresheet())
    aim = W.against_field(field_pmf, "bench")
    play = W.WinPlay(strategy, tables)
    times: list[float] = []
    rng = np.random.default_rng(seed)
    places = {"field-aware": [], "expected-total": []}
    start = time.perf_counter()
    for d in range(days):
        dice_seed = seed_from_number(seed * 1_000_003 + d)
        field = np.sort(rng.choice(len(field_pmf), size=field_size, p=field_pmf))
        for name in places:
            total = solo(play, aim if name == "field-aware" else None, dice_seed, d, times)
            above = field_size - np.searchsorted(field, total, side="right")
            level = np.searchsorted(field, total, side="right") - np.searchsorted(field, total, side="left")
            places[name].append(1 + above + level / 2)
        if report and (d + 1) % report == 0:
            print(_field_line(places, d + 1, time.perf_counter() - start), flush=True)
    print(_field_line(places, days, time.perf_counter() - start))
    diff = np.array(places["field-aware"]) - np.array(places["expected-total"])
    half = 1.96 * diff.std() / math.sqrt(days)
    print(f"paired difference (field-aware - expected-total): {diff.mean():.2f} places, ±{half:.2f} (95%)")
    print(times_line(times))


def _field_line(places: dict, days: int, seconds: float) -> str:
    parts = [f"{name} {np.mean(v):.1f}" for name, v in places.items()]
    return f"{days} days, average place in a field of 1000 + 1: " + ", ".join(parts) + f"  ({seconds:.0f} s)"


def solo(play: W.WinPlay, aim: W.Aim | None, seed: str, game: int, times: list[float]) -> int:
    sheet = Scoresheet()
    for number in range(1, len(Box) + 1):
        dice = roll_dice(seed, game, number, 1, None, (False,) * 5)
        for roll in (2, 3):
            t = time.perf_counter()
            if aim is None:
                keep = play.strategy.best_keep(sheet, dice, 4 - roll)
            else:
                keep = play.keep_options(sheet, dice, 4 - roll, aim)[0].keep
                times.append(time.perf_counter() - t)
            if len(keep) == 5:
                break
            dice = roll_dice(seed, game, number, roll, dice, held_flags(dice, keep))
        t = time.perf_counter()
        if aim is None:
            box = play.strategy.best_box(sheet, dice)
        else:
            box = play.box_options(sheet, dice, aim)[0].box
            times.append(time.perf_counter() - t)
        sheet = sheet.place(box, dice)
    return sheet.total


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=0)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--days", type=int, default=0)
    parser.add_argument("--field", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--report", type=int, default=1000, help="print the figures every N games or days")
    parser.add_argument("--estimate", action="store_true", help="what exact tables would cost")
    parser.add_argument(
        "--small-cases", type=int, default=0, help="endgames to measure exact tables' gain on"
    )
    parser.add_argument("--boxes", type=int, default=3, help="boxes left in the small cases")
    args = parser.parse_args()
    if args.games:
        bench_games(args.games, args.players, args.seed, args.report)
    if args.days:
        bench_field(args.days, args.field, args.seed, args.report)
    if args.estimate or args.small_cases:
        from bench import win_tables_value

        if args.estimate:
            win_tables_value.estimate()
        if args.small_cases:
            win_tables_value.small_cases(args.small_cases, args.boxes, args.seed, args.report)


if __name__ == "__main__":
    main()
