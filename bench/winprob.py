"""Win probability: the method against a plain Monte Carlo, and its time per position.

    .venv/bin/python bench/winprob.py                    # time per position (median, p90), no reference
    .venv/bin/python bench/winprob.py --reference 100000 --write tests/data/winprob_mc.json

The positions: games of 2 and 4 seats played with the server's dice by computer players of mixed
strengths (so the totals differ), stopped early (round 2), in the middle (round 7) and late (round 12
or 13), the seat to play caught after its first or second roll; and hand-made late positions where
ties for first are likely (equal sheets with one box left). `--reference G` plays G whole games
jointly from each position (every seat optimal on its own dice; a tie for first split evenly) and
stores the figures beside the positions; tests/dicegame/strategy/test_winprob.py checks the method
against them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dicegame.rules.dice import roll_dice
from dicegame.rules.scoring import Box, Scoresheet
from dicegame.strategy import Bot, Strategy, winprob
from dicegame.strategy.simulate import held_flags, seed_from_number


def _play_turn(bot: Bot, sheet: Scoresheet, seed: str, game: int, turn: int, stop_after: int | None = None):
    """One turn; stop_after (1 or 2): return (sheet, dice, rolls_left) right after that roll."""
    dice = roll_dice(seed, game, turn, 1, None, (False,) * 5)
    for roll in (2, 3):
        if stop_after == roll - 1:
            return sheet, dice, 4 - roll
        keep = bot.choose_keep(sheet, dice, 4 - roll)
        if len(keep) == 5:
            break
        dice = roll_dice(seed, game, turn, roll, dice, held_flags(dice, keep))
    return sheet.place(bot.choose_box(sheet, dice), dice), None, 0


def played_position(name: str, number: int, seats: int, rounds: int, mover: int, stop_after: int) -> dict:
    """Seats of strengths hard, medium, easy, ... after `rounds` rounds; in round rounds + 1 the seats
    before `mover` have played and `mover` has rolled `stop_after` times."""
    seed = seed_from_number(number)
    strengths = ["hard", "medium", "easy", "hard"]
    out = []
    for s in range(seats):
        bot = Bot(strengths[s])
        sheet, dice, left = Scoresheet(), None, 0
        for r in range(rounds + (1 if s < mover else 0)):
            sheet, _, _ = _play_turn(bot, sheet, seed, s, r + 1)
        if s == mover and len(sheet.boxes) < len(Box):
            sheet, dice, left = _play_turn(bot, sheet, seed, s, rounds + 1, stop_after)
        out.append(_seat_json(sheet, dice, left))
    return {"name": name, "seats": out}


def _seat_json(sheet: Scoresheet, dice=None, rolls_left: int = 0) -> dict:
    return {"sheet": sheet.to_dict(), "dice": list(dice) if dice else None, "rolls_left": rolls_left}


def tie_positions() -> list[dict]:
    """Late positions where a tie for first is likely."""
    base = {
        Box.ONES: 3,
        Box.TWOS: 6,
        Box.THREES: 9,
        Box.FOURS: 12,
        Box.FIVES: 15,
        Box.SIXES: 18,
        Box.THREE_OF_A_KIND: 20,
        Box.FOUR_OF_A_KIND: 0,
        Box.FULL_HOUSE: 25,
        Box.SMALL_STRAIGHT: 30,
        Box.LARGE_STRAIGHT: 40,
    }
    penta_left = Scoresheet({**base, Box.CHANCE: 22})
    chance_left = Scoresheet({**base, Box.PENTA: 0})
    both_left = Scoresheet(base)
    return [
        {"name": "late-2-tie-penta-left", "seats": [_seat_json(penta_left), _seat_json(penta_left)]},
        {
            "name": "late-4-tie-penta-left",
            "seats": [_seat_json(penta_left, (2, 2, 2, 5, 6), 1)] + [_seat_json(penta_left)] * 3,
        },
        {
            "name": "late-2-penta-against-chance",
            "seats": [_seat_json(penta_left), _seat_json(Scoresheet({**base, Box.PENTA: 0}))],
        },
        {"name": "late-4-two-boxes", "seats": [_seat_json(both_left)] * 2 + [_seat_json(chance_left)] * 2},
    ]


def positions() -> list[dict]:
    out = []
    number = 100
    for seats in (2, 4):
        for stage, rounds in (("early", 1), ("middle", 6), ("late", 11), ("last", 12)):
            for stop_after in (1, 2):
                number += 1
                mover = number % seats
                name = f"{stage}-{seats}-r{rounds + 1}-seat{mover + 1}-after-roll{stop_after}"
                out.append(played_position(name, number, seats, rounds, mover, stop_after))
    return out + tie_positions()


def seat_positions(position: dict) -> list[winprob.SeatPosition]:
    return [
        winprob.SeatPosition(
            Scoresheet.from_dict(s["sheet"]),
            tuple(s["dice"]) if s["dice"] else None,
            s["rolls_left"],
        )
        for s in position["seats"]
    ]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--reference", type=int, default=0, help="games of the plain Monte Carlo per position"
    )
    parser.add_argument("--write", type=Path, help="write positions and reference figures here (JSON)")
    parser.add_argument("--samples", type=int, default=winprob.DEFAULT_SAMPLES)
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of the method per position")
    args = parser.parse_args()
    values = Strategy.load().values
    all_positions = positions()
    timings: dict[tuple[str, int], list[float]] = {}
    moved: dict[tuple[str, int], list[float]] = {}
    worst = 0.0
    for number, position in enumerate(all_positions):
        seats = seat_positions(position)
        for r in range(args.repeat):
            start = time.perf_counter()
            chances = winprob.win_chances(values, seats, n=args.samples, seed=r)
            elapsed = time.perf_counter() - start
            stage = position["name"].split("-")[0]
            timings.setdefault((stage, len(seats)), []).append(elapsed)
        # A live move changes one seat: the others' distributions come from the cache.
        mover = next((i for i, s in enumerate(seats) if s.dice is not None), 0)
        for r in range(args.repeat):
            cache: dict = {}
            winprob.win_chances(values, seats, n=args.samples, seed=r, cache=cache)
            del cache[winprob._position_key(seats[mover], args.samples, r)]
            start = time.perf_counter()
            winprob.win_chances(values, seats, n=args.samples, seed=r, cache=cache)
            moved.setdefault((stage, len(seats)), []).append(time.perf_counter() - start)
        line = f"{position['name']:42} method " + " ".join(f"{c:6.1%}" for c in chances)
        if args.reference:
            start = time.perf_counter()
            rng = np.random.default_rng(10_000 + number)
            reference = winprob.joint_monte_carlo(values, seats, args.reference, rng)
            position["reference"] = {"games": args.reference, "chances": reference}
            diff = max(abs(a - b) for a, b in zip(chances, reference, strict=True))
            worst = max(worst, diff)
            line += f"  MC {' '.join(f'{c:6.1%}' for c in reference)}  max diff {diff:.2%}"
            line += f" ({time.perf_counter() - start:.1f} s)"
        print(line, flush=True)
    for title, table in (
        ("every seat played afresh", timings),
        ("one seat moved, the others' distributions cached (a live move)", moved),
    ):
        print(f"\nmethod: {args.samples} futures per seat; time per position, {title}:")
        for (stage, seats), times in sorted(table.items()):
            times.sort()
            p90 = times[min(len(times) - 1, int(0.9 * len(times)))]
            median = statistics.median(times) * 1000
            print(f"  {stage:7} {seats} seats: median {median:6.0f} ms  p90 {p90 * 1000:6.0f} ms")
    if args.reference:
        print(f"largest difference from the plain Monte Carlo: {worst:.2%}")
    if args.write:
        args.write.write_text(
            json.dumps({"samples": args.samples, "positions": all_positions}, indent=1) + "\n"
        )
        print(f"wrote {args.write}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
