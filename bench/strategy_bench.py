"""Benchmark of the optimal-strategy table: build, load, per-decision latency, memory, and the speed
tricks of the solver measured against a straightforward numpy reference written here.

    .venv/bin/python bench/strategy_bench.py [--repeats 3] [--full-baseline]

Every figure is a median over repeats. Wall time is what a user waits; CPU time (process_time) is
printed beside it because the machine may be shared: when the two differ a lot, another process was
taking the cores and the CPU figure is the fairer one.

The reference ("plain numpy") solves states the obvious vectorised way: every reachable state, every
box written row by row over all 252 rolls, keep values through the dense 462 x 252 keep-to-roll
matrix (a matrix product), best keep per roll by a gather over each roll's (up to 32) sub-keeps. By
default it solves a sample of chunks spread over all layers (checking it agrees with the table) and
extrapolates to all 536,448 reachable states; --full-baseline solves the whole game that way.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dicegame.rules.scoring import UPPER_BONUS, Box, Scoresheet
from dicegame.strategy import Strategy, solver
from dicegame.strategy import cache as strategy_cache
from dicegame.strategy import tables as T
from dicegame.strategy.turn import State, TurnValues

PUBLIC_C_SOLVER_SECONDS = 5.6  # a public single-threaded C solver of the full table, on this machine type
REACHABLE_STATES = 536_448
CHUNK = solver.DEFAULT_CHUNK


def timed(fn: Callable[[], object], repeats: int) -> tuple[float, float, object]:
    """(median wall s, median CPU s, last result) over repeats."""
    walls, cpus, result = [], [], None
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        result = fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus), result


def best_of(fn: Callable[[], object], repeats: int) -> float:
    """Fastest wall time of repeats, in ms: for short kernels, the least disturbed by other processes."""
    times = []
    for _ in range(repeats):
        w = time.perf_counter()
        fn()
        times.append(time.perf_counter() - w)
    return min(times) * 1e3


# -- the straightforward numpy reference ---------------------------------------------------------------


def reference_final(values: np.ndarray, m: np.ndarray, u: np.ndarray, p: np.ndarray) -> np.ndarray:
    """(252, n) best box per final roll: each box over all rolls, as a full (252, n) array."""
    flat = values.reshape(-1)
    out = np.full((T.N_ROLLS, len(m)), -np.inf)
    for box in Box:
        bit = 1 << box.value
        points = T.SCORE[:, box.value, None]
        upper, penta, gained = u, p, points
        if box.is_upper:
            upper = np.minimum(u + points, T.UPPER_CAP)
            gained = points + np.where((u < T.UPPER_CAP) & (u + points >= T.UPPER_CAP), UPPER_BONUS, 0)
        elif box is Box.PENTA:
            penta = (points == 50).astype(np.intp) + 0 * p
        candidate = gained + flat[((m | bit) * T.N_UPPER + upper) * 2 + penta]
        candidate[:, (m & bit) != 0] = -np.inf
        out = np.maximum(out, candidate)
    joker = np.flatnonzero(p == 1)  # the forced joker, on the 6 Penta rows (as in the solver)
    if len(joker):
        out[np.ix_(T.PENTA_ROLLS, joker)] = solver._joker(solver._afterwards(flat, m, u, p), joker)
    return out


def reference_best_subkeep(keep_values: np.ndarray) -> np.ndarray:
    padded = np.vstack([keep_values, np.full((1, keep_values.shape[1]), -np.inf)])
    return padded[T.SUBKEEPS].max(axis=1)  # (252, 32, n) gathered, then the max


def reference_turn_start(values: np.ndarray, m: np.ndarray, u: np.ndarray, p: np.ndarray) -> np.ndarray:
    final = reference_final(values, m, u, p)
    one_left = reference_best_subkeep(T.TRANSITION @ final)
    two_left = reference_best_subkeep(T.TRANSITION @ one_left)
    return T.FIRST_ROLL @ two_left


def reference_states(layer: int, reach: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    masks = np.flatnonzero(layer == T.POPCOUNT)
    m, u, p = np.nonzero(reach[masks])
    return masks[m], u, p


def reference_solve() -> np.ndarray:
    reach = solver.reachable_mask()
    values = np.zeros(reach.shape)
    for layer in range(T.N_BOXES - 1, -1, -1):
        m, u, p = reference_states(layer, reach)
        for lo in range(0, len(m), CHUNK):
            sl = slice(lo, lo + CHUNK)
            values[m[sl], u[sl], p[sl]] = reference_turn_start(values, m[sl], u[sl], p[sl])
    values[~reach] = np.nan
    return values


def sample_chunks(reach: np.ndarray, per_layer: int = 1) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """A chunk of CHUNK states from each layer 1..12 (layer 0 has 1 state), to time per state."""
    chunks = []
    rng = np.random.default_rng(0)
    for layer in range(T.N_BOXES):
        m, u, p = reference_states(layer, reach)
        for _ in range(per_layer):
            pick = rng.choice(len(m), min(CHUNK, len(m)), replace=False)
            chunks.append((m[pick], u[pick], p[pick]))
    return chunks


# -- measurements --------------------------------------------------------------------------------------


def section(title: str) -> None:
    print(f"\n== {title}")


def row(label: str, value: str) -> None:
    print(f"  {label:<52} {value}")


def bench_build(repeats: int) -> Strategy:
    section(f"full build (Strategy.build), median of {repeats}")
    wall, cpu, strategy = timed(Strategy.build, repeats)
    row("wall / CPU", f"{wall:.2f} s / {cpu:.2f} s")
    row("public single-threaded C solver (for context)", f"{PUBLIC_C_SOLVER_SECONDS:.1f} s")
    row("ratio to the C solver (wall)", f"{wall / PUBLIC_C_SOLVER_SECONDS:.2f}x")
    value = strategy.expected_total(Scoresheet())
    row("expected total, empty sheet", f"{value:.13f} (published 254.4848458816832)")
    bench_build.wall, bench_build.cpu = wall, cpu  # type: ignore[attr-defined]
    return strategy


def bench_load(strategy: Strategy) -> None:
    section("cache file")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "strategy.npz"
        wall, _, _ = timed(lambda: strategy_cache.save(path, strategy.values), 3)
        row("save (atomic, fsync)", f"{wall * 1e3:.1f} ms, {path.stat().st_size / 1e6:.1f} MB")
        wall, cpu, _ = timed(lambda: Strategy.load(path), 15)
        row(
            "Strategy.load of a valid file (checksum verified)",
            f"{wall * 1e3:.1f} ms (CPU {cpu * 1e3:.1f} ms)",
        )
    table = strategy.values.nbytes
    consts = sum(a.nbytes for a in (T.TRANSITION, T.SUBKEEPS, T.CHILDREN, T.PARENTS, T.SCORE, T.KEEP_COUNTS))
    row("memory: value table (float64, 8192 x 64 x 2)", f"{table / 2**20:.1f} MiB")
    row("memory: roll/keep tables", f"{consts / 2**20:.2f} MiB")


def random_positions(strategy: Strategy, n: int) -> list[tuple[Scoresheet, tuple[int, ...]]]:
    """Random sheets of real games (a random player) with random dice."""
    rng = np.random.default_rng(1)
    positions = []
    while len(positions) < n:
        sheet = Scoresheet()
        for _ in range(int(rng.integers(0, 13))):
            dice = tuple(int(x) for x in rng.integers(1, 7, 5))
            options = list(sheet.options(dice))
            sheet = sheet.place(options[int(rng.integers(len(options)))], dice)
        positions.append((sheet, tuple(int(x) for x in rng.integers(1, 7, 5))))
    return positions


def latency(fn: Callable[[Scoresheet, tuple[int, ...]], object], positions, fresh: Strategy | None) -> float:
    times = []
    for sheet, dice in positions:
        if fresh is not None:
            fresh._turn.cache_clear()
        t = time.perf_counter()
        fn(sheet, dice)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def bench_decisions(strategy: Strategy) -> None:
    section("decision latency, median over 2,000 random positions of real games")
    positions = random_positions(strategy, 2000)
    s = Strategy(strategy.values)
    cold = {
        "best_keep(rolls_left=2), new state": lambda sh, d: s.best_keep(sh, d, 2),
        "best_keep(rolls_left=1), new state": lambda sh, d: s.best_keep(sh, d, 1),
        "best_box": lambda sh, d: s.best_box(sh, d),
        "evaluate(rolls_left=2), new state": lambda sh, d: s.evaluate(sh, d, 2),
    }
    for label, fn in cold.items():
        row(label, f"{latency(fn, positions, s) * 1e6:.0f} us")
    warm = positions[-200:]  # states already seen this turn, as the turn's later queries find them
    for sheet, _ in warm:
        s.turn(sheet)
    warm_us = latency(lambda sh, d: s.best_keep(sh, d, 1), warm, None) * 1e6
    row("best_keep(rolls_left=1), state already seen this turn", f"{warm_us:.0f} us")


def bench_tricks(strategy: Strategy, repeats: int, full_baseline: bool) -> None:
    section("what each trick gains, on one chunk of 512 states of layer 6 (best of several runs)")
    reach = solver.reachable_mask()
    values = np.nan_to_num(strategy.values)
    m, u, p = reference_states(6, reach)  # the biggest layer, a typical chunk of it
    pick = np.random.default_rng(2).choice(len(m), CHUNK, replace=False)
    m, u, p = m[pick], u[pick], p[pick]
    ws = solver._Workspace(CHUNK)
    keeps = ws.keeps

    def fast_final():
        return solver.final_roll_values(values, m, u, p, keeps[T.ROLL_OFFSET :], ws)

    naive_ms = best_of(lambda: reference_final(values, m, u, p), repeats * 3)
    fast_ms = best_of(fast_final, repeats * 3)
    np.testing.assert_allclose(reference_final(values, m, u, p), fast_final(), rtol=0, atol=1e-9)
    row("final-roll values: each box over all rows", f"{naive_ms:.2f} ms")
    row(
        "  merged sacrifice row + patching the few scoring rows",
        f"{fast_ms:.2f} ms ({naive_ms / fast_ms:.1f}x)",
    )

    final = fast_final().copy()
    dense_ms = best_of(lambda: T.TRANSITION @ final, repeats * 3)

    def one_die():
        keeps[T.ROLL_OFFSET :] = final
        for s in range(4, -1, -1):
            lo, hi = T.SIZE_START[s], T.SIZE_START[s + 1]
            np.take(keeps, T.CHILDREN[lo:hi, 0], axis=0, out=keeps[lo:hi], mode="clip")
            for f in range(1, 6):
                np.take(keeps, T.CHILDREN[lo:hi, f], axis=0, out=ws.tmp[: hi - lo], mode="clip")
                keeps[lo:hi] += ws.tmp[: hi - lo]
            keeps[lo:hi] *= 1 / 6

    sparse_ms = best_of(one_die, repeats * 3)
    np.testing.assert_allclose(keeps, T.TRANSITION @ final, rtol=0, atol=1e-9)
    row("keep values: dense 462 x 252 matrix product (BLAS)", f"{dense_ms:.2f} ms")
    row("  one die at a time (6 additions per keep)", f"{sparse_ms:.2f} ms ({dense_ms / sparse_ms:.1f}x)")

    keep_values = T.TRANSITION @ final
    gather_ms = best_of(lambda: reference_best_subkeep(keep_values), repeats * 3)

    def lattice():
        keeps[:] = keep_values
        for s in range(1, 6):
            lo = T.SIZE_START[s]
            for j in range(5):
                nj = solver._PREFIX[s][j]
                if nj == 0:
                    break
                np.take(keeps, T.PARENTS[lo : lo + nj, j], axis=0, out=ws.tmp[:nj], mode="clip")
                np.maximum(keeps[lo : lo + nj], ws.tmp[:nj], out=keeps[lo : lo + nj])

    lattice_ms = best_of(lattice, repeats * 3)
    np.testing.assert_array_equal(keeps[T.ROLL_OFFSET :], reference_best_subkeep(keep_values))
    row("best keep per roll: gather each roll's 32 sub-keeps", f"{gather_ms:.2f} ms")
    row(
        "  maxima passed up the lattice (<= 5 parents)",
        f"{lattice_ms:.2f} ms ({gather_ms / lattice_ms:.1f}x)",
    )

    idx = T.CHILDREN[T.SIZE_START[4] : T.SIZE_START[5], 0]
    raise_ms = best_of(lambda: np.take(keeps, idx, axis=0, out=ws.tmp[: len(idx)]), repeats * 20)
    clip_ms = best_of(lambda: np.take(keeps, idx, axis=0, out=ws.tmp[: len(idx)], mode="clip"), repeats * 20)
    row("np.take(out=...) default mode='raise' (buffers out)", f"{raise_ms:.3f} ms")
    row("  mode='clip' (indices known valid)", f"{clip_ms:.3f} ms ({raise_ms / clip_ms:.1f}x)")

    computed = sum(len(solver._layer_states(layer, reach)[0]) for layer in range(T.N_BOXES))
    row(
        "states: slots / reachable / computed after merging",
        f"{reach.size:,} / {REACHABLE_STATES:,} / {computed:,}",
    )

    section("the straightforward numpy reference, measured in this run")
    chunks = sample_chunks(reach)
    ref_states = sum(len(c[0]) for c in chunks)

    def ref_sample():
        return [reference_turn_start(values, *c) for c in chunks]

    def fast_sample():
        return [solver.turn_start_values(values, *c, ws) for c in chunks]

    _, ref_cpu, ref_out = timed(ref_sample, repeats)
    _, fast_cpu, fast_out = timed(fast_sample, repeats)
    for a, b, c in zip(ref_out, fast_out, chunks, strict=True):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-9)
        np.testing.assert_allclose(a, strategy.values[c], rtol=0, atol=1e-9)
    ref_per_state = ref_cpu / ref_states
    fast_per_state = fast_cpu / ref_states
    row(
        f"sample: {ref_states:,} states over all layers, CPU",
        f"reference {ref_cpu:.2f} s, solver {fast_cpu:.2f} s",
    )
    row("per state", f"reference {ref_per_state * 1e6:.1f} us, solver {fast_per_state * 1e6:.1f} us")
    row("  speed-up per state (the tricks inside a chunk)", f"{ref_per_state / fast_per_state:.1f}x")
    estimate = ref_per_state * REACHABLE_STATES
    row("reference full solve, extrapolated (536,448 states)", f"{estimate:.1f} s CPU")
    build = bench_build.wall  # type: ignore[attr-defined]
    row("  ratio reference / our build (CPU to CPU)", f"{estimate / bench_build.cpu:.1f}x")  # type: ignore[attr-defined]
    if full_baseline:
        wall, cpu, ref_values = timed(reference_solve, 1)
        np.testing.assert_allclose(ref_values, strategy.values, rtol=1e-12, equal_nan=True)
        row(
            "reference full solve, measured",
            f"{wall:.1f} s wall / {cpu:.1f} s CPU ({wall / build:.1f}x our build)",
        )

    per_state_loop = chunks[6][0][:200], chunks[6][1][:200], chunks[6][2][:200]

    def one_state_at_a_time():
        for mask, up, pe in zip(*per_state_loop, strict=True):
            TurnValues.from_table(values, State(int(mask), int(up), int(pe))).start_value()

    _, loop_cpu, _ = timed(one_state_at_a_time, 1)
    row("one state at a time (no vectorisation), per state", f"{loop_cpu / 200 * 1e6:.0f} us CPU")
    row("  vectorising across a chunk of states gains", f"{loop_cpu / 200 / fast_per_state:.0f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--full-baseline", action="store_true", help="also run the whole reference solve")
    args = parser.parse_args()
    strategy = bench_build(args.repeats)
    bench_load(strategy)
    bench_decisions(strategy)
    bench_tricks(strategy, args.repeats, args.full_baseline)


if __name__ == "__main__":
    main()
