"""Exact tables of "the best chance of at least t more points": what they would cost, and what they
would add over the distributions of the expected-total play, measured on small cases first.

`estimate()`: every state class (the solver's 314,878) times the range of t it needs (at least its
distribution's support under the expected-total play: the best chance reaches at least as far), times
the measured cost of one (state, t) in `reach.start_over_points` (the exact kernel, vectorised over t),
and the storage at float64 and float32.

`small_cases(n, boxes)`: n two-player endgames where both players have `boxes` boxes left (reached by
expected-total play on seeded dice), each played out on the same dice by four players in the first
seat against the expected-total computer:
- expected-total: the hard computer;
- winner: the winner as built (distributions + the exact search near the end);
- exact tables: Holderied's "beat your opponent", Σ_i P(opponent ends on i) P*(I end above i) (ties
  half), from exact tables of P* for the layers the endgame can reach, within each turn the exact search;
- exact search: the whole endgame searched exactly for the aim (the best response to the opponent's
  distribution, re-planned every turn): what any table could at best give.
"""

from __future__ import annotations

import math
import time

import numpy as np

from dicegame.rules.dice import roll_dice
from dicegame.rules.scoring import Scoresheet
from dicegame.strategy import Bot, Strategy, reach, solver, win_tables
from dicegame.strategy import tables as T
from dicegame.strategy import winner as W
from dicegame.strategy.simulate import held_flags, seed_from_number
from dicegame.strategy.writing import flat_index, writes


def estimate(sample: int = 12) -> None:
    tables = win_tables.load()
    reach_mask = solver.reachable_mask()
    total_states = total_width = 0
    seconds = 0.0
    per_state_t = []
    for layer in range(T.N_BOXES):
        m, u, p = solver._layer_states(layer, reach_mask)
        rows = tables.row_of[flat_index(m, u, p)]
        known = rows >= 0
        ends = tables.lo[rows[known]] + np.diff(tables.start)[rows[known]]
        width = int(np.ceil(ends.mean())) if known.any() else 1
        total_states += len(m)
        total_width += int(ends.sum()) + (len(m) - int(known.sum())) * width
        if layer in (3, 6, 9, 11):
            cost = _kernel_cost(m, u, p, width, sample)
            per_state_t.append(cost)
            print(
                f"layer {layer}: {len(m)} states, t-range {width} on average, "
                f"{cost * 1e6:.1f} us a (state, t)"
            )
    cost = float(np.median(per_state_t))
    seconds = total_width * cost
    print(
        f"{total_states} states, {total_width / total_states:.0f} values of t each on average: "
        f"{total_width} values"
    )
    print(
        f"build: {seconds / 60:.0f} minutes on one core at {cost * 1e6:.1f} us a (state, t), this machine now"
    )
    print(f"size: {total_width * 8 / 1e9:.2f} GB at float64, {total_width * 4 / 1e9:.2f} GB at float32")


def _kernel_cost(m, u, p, width: int, sample: int) -> float:
    rng = np.random.default_rng(0)
    pick = rng.choice(len(m), min(sample, len(m)), replace=False)
    m, u, p = m[pick], u[pick], p[pick]
    w = writes(m, u, p)
    nxt = np.unique(reach.representative(w.next_state[w.legal]))
    nxt = nxt[nxt // (T.N_UPPER * 2) != T.ALL_FILLED]
    table = reach.PointTable(width, np.linspace(0.0, 1.0, width))
    table.add(nxt, rng.random((len(nxt), width)))
    start = time.perf_counter()
    for lo in range(0, len(m), 4):
        reach.start_over_points(table, m[lo : lo + 4], u[lo : lo + 4], p[lo : lo + 4])
    return (time.perf_counter() - start) / len(m) / width


class ExactTablesPlay(W.WinPlay):
    """Holderied's rule from exact tables of P*: ending the turn in s' with total y is worth
    Σ_i P(opponent ends on i) [P*(s', i - y + 1) + half of P*(s', i - y) - P*(s', i - y + 1)]."""

    def __init__(self, strategy, outcomes, pstar: reach.PointTable):
        super().__init__(strategy, outcomes, exact_boxes=0)
        self.pstar = pstar
        self.opponent: np.ndarray | None = None

    def _compute_finals(self, state, base, aim):
        w = writes(np.array([state.mask]), np.array([state.upper]), np.array([state.penta]))
        legal, gain = w.legal[:, :, 0], w.gain[:, :, 0]
        nxt = reach.representative(np.where(w.legal, w.next_state, flat_index(T.ALL_FILLED, 0, 0)))[:, :, 0]
        pairs, inverse = np.unique(nxt * 256 + gain, return_inverse=True)
        width = self.pstar.width
        totals = np.arange(W.TOTALS)
        worth = np.empty(len(pairs))
        for i, pair in enumerate(pairs.tolist()):
            f, g = divmod(pair, 256)
            y = base + g
            if f // (T.N_UPPER * 2) == T.ALL_FILLED:
                at_least = lambda t: (t <= 0).astype(float)  # noqa: E731
            else:
                row = self.pstar.values[self.pstar.row(f)]  # row[g'] = P*(width - 1 - g')

                def at_least(t, row=row):
                    t = np.clip(t, 0, width)
                    return np.where(t >= width, 0.0, row[np.clip(width - 1 - t, 0, width - 1)])

            need = totals - y  # the opponent ends on i: I need i - y + 1 to be above it
            worth[i] = float(
                self.opponent @ (at_least(need + 1) + 0.5 * (at_least(need) - at_least(need + 1)))
            )
        by_box = np.where(legal, worth[inverse.reshape(legal.shape)], -1.0)
        return by_box.max(axis=0), by_box


def small_cases(n: int, boxes: int, seed: int, report: int) -> None:
    strategy = Strategy.shared()
    tables = win_tables.load()
    start = time.perf_counter()
    width = 700
    pstar, _t = reach.chances_at_least(T.N_BOXES - boxes + 1, width, chunk=4)
    print(
        f"exact tables of the last {boxes - 1} layers, t < {width}: {time.perf_counter() - start:.0f} s",
        flush=True,
    )
    hard = Bot("hard", strategy)
    players = {
        "expected-total": None,
        "winner": W.WinPlay(strategy, tables),
        "exact tables": ExactTablesPlay(strategy, tables, pstar),
        "exact search": W.WinPlay(strategy, tables, exact_boxes=boxes),
    }
    players["exact search"].exact_budget = math.inf
    shares: dict[str, list[float]] = {name: [] for name in players}
    start = time.perf_counter()
    for g in range(n):
        dice = seed_from_number(seed * 7_919 + g)
        sheets = _endgame(hard, dice, g, boxes)
        for name, play in players.items():
            shares[name].append(_play_out(name, play, hard, tables, sheets, dice, g))
        if report and (g + 1) % report == 0:
            print(_line(shares, g + 1, time.perf_counter() - start), flush=True)
    print(_line(shares, n, time.perf_counter() - start))


def _line(shares: dict, n: int, seconds: float) -> str:
    base = np.array(shares["winner"])
    parts = []
    for name, s in shares.items():
        s = np.array(s)
        d = s - base
        parts.append(f"{name} {s.mean():.4f} ({d.mean():+.4f} ±{1.96 * d.std() / math.sqrt(n):.4f})")
    return (
        f"{n} endgames, win rate (against the winner as built, same dice, 95%): "
        + "; ".join(parts)
        + f"  [{seconds:.0f} s]"
    )


def _endgame(hard: Bot, dice: str, game: int, boxes: int) -> list[Scoresheet]:
    sheets = [Scoresheet(), Scoresheet()]
    number = 0
    while len(sheets[1].open_boxes) > boxes:
        for seat in (0, 1):
            number += 1
            sheets[seat] = _turn(
                lambda s, d, left: hard.choose_keep(s, d, left),
                lambda s, d: hard.choose_box(s, d),
                sheets[seat],
                dice,
                game,
                number,
            )
    return sheets


def _turn(keep, box, sheet, dice, game, number):
    d = roll_dice(dice, game, number, 1, None, (False,) * 5)
    for roll in (2, 3):
        k = keep(sheet, d, 4 - roll)
        if len(k) == 5:
            break
        d = roll_dice(dice, game, number, roll, d, held_flags(d, k))
    return sheet.place(box(sheet, d), d)


def _play_out(name, play, hard, tables, sheets, dice, game) -> float:
    sheets = list(sheets)
    number = 1000
    while not all(s.is_complete for s in sheets):
        number += 1
        mine, other = sheets
        if play is None:
            sheets[0] = _turn(hard.choose_keep, hard.choose_box, mine, dice, game, number)
        else:
            aim = W.against(tables, [other])
            if isinstance(play, ExactTablesPlay):
                play.opponent = W.final_totals(tables, other)
            sheets[0] = _turn(
                lambda s, d, left, aim=aim: play.keep_options(s, d, left, aim)[0].keep,
                lambda s, d, aim=aim: play.box_options(s, d, aim)[0].box,
                mine,
                dice,
                game,
                number,
            )
        number += 1
        sheets[1] = _turn(hard.choose_keep, hard.choose_box, sheets[1], dice, game, number)
    a, b = (s.total for s in sheets)
    return 1.0 if a > b else 0.5 if a == b else 0.0
