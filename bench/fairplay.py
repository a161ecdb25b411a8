"""Benchmark: the fair-play line (`fairplay.model.verdict`) on the library of simulated people
(`fairplay.library`), and what its signals cost.

1. Honest people: every kind of `library.HONEST` (the calibration kinds, then the held-out ones), in
   --accounts accounts (default 4) of --games games (default 200). The games are played as the server
   lets people play (`fairplay.simulate`: the auto-commit, the computer for an absent person) and read
   as the site reads them (the stored analysis's decisions). The line is checked after every game up to
   the 50th, then every 5th (and at 10, 50, 100 and 200): per kind, the accounts flagged with a one-sided
   95% upper bound (Clopper-Pearson; the rule of three, 3/n, when none is), the evidence at 10, 50, 100 and
   200 games (median over the accounts, and the highest at the last), the fitted solver's share, and the
   most suspicious games in an account. Then all honest accounts together.
2. Solver users (`library.ASSISTED`: on every decision, on the holds with the box left to the
   auto-commit, on half of them, ...): --assisted-accounts accounts each (default 20), up to
   --assisted-games games (default 100), the line checked after every game, stopping at the flag. Games
   until flagged: median, p90, max (never flagged counts as later than the limit).
3. Cost per game (caches warm): (a) the baseline, a bare game (the strategy's lookups and a Boltzmann
   player's picks); (b) a real game's signals (`positions.from_analysis` on its stored analysis, then
   `game_signals`); (c) a verdict over 100 games. Medians and p99s in ms, and the ratios to (a).

Accounts run in a process pool (--workers); each account's dice, choices and absences come from its own
generator seeded by (--seed, its group, its number), so a run repeats exactly whatever the scheduling.
--set NAME=VALUE overrides a constant of fairplay.model for the run; --kinds picks honest kinds by index;
--quick is a short run.

    .venv/bin/python bench/fairplay.py [--accounts 4] [--games 200] [--assisted-accounts 20]
        [--assisted-games 100] [--workers 2] [--seed 2026] [--kinds 0,3,...] [--set ALLOWANCE=0.2]
        [--quick] [--json PATH]
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# First, before bench/ (the script's own directory): this file would shadow the `fairplay` package.
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from dicegame.rules.scoring import Box, Scoresheet  # noqa: E402
from dicegame.strategy import analysis as A  # noqa: E402
from dicegame.strategy.decisions import Strategy  # noqa: E402
from fairplay import library, model, positions, simulate  # noqa: E402
from fairplay.players import Boltzmann, boltzmann_index  # noqa: E402

CONSTANTS = (
    "MARGIN",
    "ALLOWANCE",
    "PRIOR",
    "TOLERANCE",
    "TIME_CAP",
    "HIDDEN_CAP",
    "FLAG_EVIDENCE",
    "GAME_EVIDENCE",
    "MIN_SUSPICIOUS_GAMES",
    "MIN_SUSPICIOUS_SHARE",
)
CHECKPOINTS = (10, 50, 100, 200)
HONEST, ASSISTED = 0, 1000  # seed groups
EVERY_GAME_UNTIL, THEN_EVERY = 50, 5

_strategy: Strategy | None = None


def parse_sets(items: list[str]) -> dict[str, object]:
    out = {}
    for item in items:
        name, _, text = item.partition("=")
        name = name.strip().upper()
        if name not in CONSTANTS:
            raise SystemExit(f"--set {name}: not one of {', '.join(CONSTANTS)}")
        out[name] = ast.literal_eval(text.strip())
    return out


def init_worker(sets: dict[str, object]) -> None:
    global _strategy
    for name, value in sets.items():  # the model reads its constants at call time
        setattr(model, name, value)
    _strategy = Strategy.shared()


def checked(g: int, games: int) -> bool:
    return g <= EVERY_GAME_UNTIL or g % THEN_EVERY == 0 or g in CHECKPOINTS or g == games


def run_account(task: tuple) -> dict:
    """One account's games, the line checked as `checked` says; stops at the flag when asked to."""
    group, kind, number, player, games, seed, stop = task
    rng = np.random.default_rng([seed, group + kind, number])
    signals, warm, v = [], None, None
    out = {"group": group, "kind": kind, "total": 0, "informative": 0, "best": 0, "auto": 0, "stand_in": 0}
    out.update(evidence={}, flagged_at=None, evidence_max=0.0, choice_max=0.0, time_max=0.0)
    for g in range(1, games + 1):
        game = simulate.play_game(_strategy, player, rng)
        s = model.game_signals(game.decisions)
        signals.append(s)
        out["total"] += game.total
        out["informative"] += s.decisions
        out["best"] += s.best
        out["auto"] += game.auto_committed
        out["stand_in"] += game.stand_in
        if not (stop or checked(g, games)):
            continue
        v = model.verdict(signals, warm)
        warm = v.fits
        out["evidence_max"] = max(out["evidence_max"], v.evidence)
        out["choice_max"] = max(out["choice_max"], v.choice)
        out["time_max"] = max(out["time_max"], v.time)
        if g in CHECKPOINTS:
            out["evidence"][g] = round(v.evidence, 3)
        if v.flagged and out["flagged_at"] is None:
            out["flagged_at"] = g
            if stop:
                break
    out.update(
        games=len(signals),
        suspicious=v.suspicious_games,
        share=v.fits.assisted.share,
        honest_share=v.fits.honest.share,
        temperature=v.temperature,
    )
    return out


def p_index(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def upper95(flagged: int, n: int) -> float:
    """One-sided 95% upper bound of a binomial rate (Clopper-Pearson; 3/n, the rule of three, at 0)."""
    if flagged == 0:
        return 3.0 / n
    lo, hi = flagged / n, 1.0
    for _ in range(60):  # P(X <= flagged; n, p) falls with p: bisect for 0.05
        mid = (lo + hi) / 2
        cdf = sum(math.comb(n, k) * mid**k * (1 - mid) ** (n - k) for k in range(flagged + 1))
        lo, hi = (mid, hi) if cdf > 0.05 else (lo, mid)
    return hi


def honest_rows(results: list[dict], kinds: list[int], games: int) -> dict:
    shown = [c for c in CHECKPOINTS if c <= games]
    print(f"\n1. Honest people: accounts of {games} games (the line checked after every game to the")
    print(
        f"   {EVERY_GAME_UNTIL}th, then every {THEN_EVERY}th); evidence: median over the accounts (highest)"
    )
    head = (
        f"{'kind':<52} {'mean':>6} {'best':>6} {'auto':>4} {'away':>4} {'flagged':>11} "
        + " ".join(f"{'ev@' + str(c):>7}" for c in shown)
        + f" {'max':>6} {'share':>5} {'susp':>4}"
    )
    print(head)
    print("-" * len(head))
    rows = []
    for kind in kinds:
        player = library.HONEST[kind]
        accts = [r for r in results if r["group"] == HONEST and r["kind"] == kind]
        n_games = sum(r["games"] for r in accts)
        flagged = sum(r["flagged_at"] is not None for r in accts)
        row = {
            "kind": player.label,
            "held_out": kind >= len(library.CALIBRATION),
            "accounts": len(accts),
            "games": n_games,
            "mean_total": round(sum(r["total"] for r in accts) / n_games, 1),
            "best_share": round(
                sum(r["best"] for r in accts) / max(1, sum(r["informative"] for r in accts)), 3
            ),
            "auto_per_game": round(sum(r["auto"] for r in accts) / n_games, 1),
            "stand_in_per_game": round(sum(r["stand_in"] for r in accts) / n_games, 2),
            "flagged": flagged,
            "upper95": upper95(flagged, len(accts)),
            "evidence": {c: round(statistics.median(r["evidence"][c] for r in accts), 2) for c in shown},
            "evidence_last_max": round(max(r["evidence"][shown[-1]] for r in accts), 2),
            "evidence_max": round(max(r["evidence_max"] for r in accts), 2),
            "share": round(statistics.median(r["share"] for r in accts), 3),
            "suspicious_max": max(r["suspicious"] for r in accts),
        }
        rows.append(row)
        mark = "*" if row["held_out"] else " "
        evidence = " ".join(f"{row['evidence'][c]:>7.2f}" for c in shown)
        flags = f"{flagged}/{len(accts)} <{row['upper95']:.0%}"
        print(
            f"{mark}{row['kind'][:51]:<51} {row['mean_total']:>6.1f} {row['best_share']:>6.1%} "
            f"{row['auto_per_game']:>4.1f} {row['stand_in_per_game']:>4.2f} {flags:>11} {evidence} "
            f"{row['evidence_max']:>6.2f} {row['share']:>5.2f} {row['suspicious_max']:>4}"
        )
    accounts = sum(r["accounts"] for r in rows)
    flagged = sum(r["flagged"] for r in rows)
    total_games = sum(r["games"] for r in rows)
    worst = max(rows, key=lambda r: r["evidence_max"])
    bound = upper95(flagged, accounts)
    print("(* held out: written after the model's constants were fixed; auto: boxes written by the")
    print(
        " auto-commit per game; away: turns the computer played per game; share: the fitted solver's share)"
    )
    print(
        f"honest accounts flagged: {flagged} of {accounts} in {total_games} games "
        f"(95% upper bound {bound:.1%}{', the rule of three' if flagged == 0 else ''}); "
        f"highest evidence {worst['evidence_max']:.2f} ({worst['kind']}) against the line's "
        f"{model.FLAG_EVIDENCE:g}"
    )
    return {"kinds": rows, "accounts": accounts, "flagged": flagged, "games": total_games, "upper95": bound}


def assisted_rows(results: list[dict], limit: int) -> list[dict]:
    print(f"\n2. Solver users: games until flagged (at most {limit}; never flagged counts as >{limit})")
    head = (
        f"{'kind':<44} {'accts':>5} {'mean':>6} {'best':>6} {'median':>6} {'p90':>5} {'max':>5} "
        f"{'never':>5} {'share':>5}"
    )
    print(head)
    print("-" * len(head))
    rows = []
    for kind, player in enumerate(library.ASSISTED):
        accts = [r for r in results if r["group"] == ASSISTED and r["kind"] == kind]
        at = [r["flagged_at"] if r["flagged_at"] is not None else math.inf for r in accts]
        n_games = sum(r["games"] for r in accts)
        row = {
            "kind": player.label,
            "accounts": len(accts),
            "mean_total": round(sum(r["total"] for r in accts) / n_games, 1),
            "best_share": round(
                sum(r["best"] for r in accts) / max(1, sum(r["informative"] for r in accts)), 3
            ),
            "median": p_index(at, 0.5),
            "p90": p_index(at, 0.9),
            "max": max(at),
            "never": sum(math.isinf(a) for a in at),
            "share": round(statistics.median(r["share"] for r in accts), 2),
        }
        t = {k: (f">{limit}" if math.isinf(row[k]) else f"{row[k]:g}") for k in ("median", "p90", "max")}
        print(
            f"{row['kind'][:44]:<44} {row['accounts']:>5} {row['mean_total']:>6.1f} "
            f"{row['best_share']:>6.1%} {t['median']:>6} {t['p90']:>5} {t['max']:>5} {row['never']:>5} "
            f"{row['share']:>5.2f}"
        )
        for k in ("median", "p90", "max"):
            row[k] = None if math.isinf(row[k]) else row[k]
        rows.append(row)
    auto = next(r for r in rows if "auto-commit" in r["kind"])
    ok = auto["median"] is not None and auto["median"] <= 10
    print(f"the auto-commit's user flagged within 10 games at the median: {'met' if ok else 'NOT met'}")
    return rows


def bare_game(strategy: Strategy, rng: np.random.Generator, temperature: float = 2.0) -> int:
    """The game itself: the strategy's lookups and a Boltzmann player's picks, nothing recorded."""
    sheet = Scoresheet()
    for _turn in range(len(Box)):
        dice = tuple(sorted(int(v) for v in rng.integers(1, 7, 5)))
        for rolls_left in (2, 1):
            choices = A.keep_choices(strategy, sheet, dice, rolls_left)
            keep = choices[boltzmann_index(rng, [c.expected_total for c in choices], temperature)].keep
            if len(keep) == 5:
                break
            dice = tuple(sorted((*keep, *(int(v) for v in rng.integers(1, 7, 5 - len(keep))))))
        choices = strategy.evaluate(sheet, dice, 0)
        box = choices[boltzmann_index(rng, [c.expected_total for c in choices], temperature)].box
        sheet = sheet.place(box, dice)
    return sheet.total


def figures(name: str, seconds: list[float]) -> dict:
    ms = [s * 1000 for s in seconds]
    out = {"n": len(ms), "median_ms": round(statistics.median(ms), 3), "p99_ms": round(p_index(ms, 0.99), 3)}
    print(f"{name:>46}: median {out['median_ms']:8.3f} ms   p99 {out['p99_ms']:8.3f} ms   (n={len(ms)})")
    return out


def costs(samples: int, seed: int) -> dict:
    strategy = Strategy.shared()
    rng = np.random.default_rng([seed, 999])
    player = simulate.Player(Boltzmann(2.0))
    bare, site, signals = [], [], []
    for i in range(samples + 5):
        t0 = time.perf_counter()
        bare_game(strategy, rng)
        t1 = time.perf_counter()
        game = simulate.play_game(strategy, player, rng)
        data = A.analyse_game(game.turns, [0], strategy)
        t2 = time.perf_counter()
        signals.append(model.game_signals(positions.from_analysis(data, 0, game.seconds)))
        t3 = time.perf_counter()
        if i >= 5:  # the first games fill the caches
            bare.append(t1 - t0)
            site.append(t3 - t2)
    verdicts = []
    for r in range(min(samples, 30)):
        window = [signals[(r + j) % len(signals)] for j in range(100)]
        t = time.perf_counter()
        model.verdict(window)
        verdicts.append(time.perf_counter() - t)
    print(f"\n3. Cost per game ({samples} games of {player.label}; caches warm)")
    out = {
        "bare_game": figures("(a) baseline: a bare game (strategy lookups)", bare),
        "signals": figures("(b) a real game's signals (from its analysis)", site),
        "verdict_100": figures("(c) a verdict over 100 games", verdicts),
    }
    base = out["bare_game"]["median_ms"]
    out["ratio_signals"] = round(out["signals"]["median_ms"] / base, 2)
    out["ratio_verdict"] = round(out["verdict_100"]["median_ms"] / base, 2)
    print(
        f"{'(b) / (a)':>46}: {out['ratio_signals']:.2f} x   {'(c) / (a)':>10}: {out['ratio_verdict']:.2f} x"
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accounts", type=int, default=4, help="accounts per honest kind")
    parser.add_argument("--games", type=int, default=200, help="games per honest account")
    parser.add_argument("--kinds", default="", help="honest kinds by index in library.HONEST (default all)")
    parser.add_argument("--assisted-accounts", type=int, default=20)
    parser.add_argument("--assisted-games", type=int, default=100, help="at most this many games per account")
    parser.add_argument("--cost-games", type=int, default=100, help="games timed for the cost")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a model constant")
    parser.add_argument("--quick", action="store_true", help="a short run")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    if args.quick:
        small = {"accounts": 1, "games": 50, "assisted_accounts": 5, "assisted_games": 40, "cost_games": 20}
        for name, value in small.items():
            if getattr(args, name) == parser.get_default(name):
                setattr(args, name, value)
    sets = parse_sets(args.set)
    init_worker(sets)
    started = time.perf_counter()
    print("fairplay.model constants" + (" (overridden: " + ", ".join(sets) + ")" if sets else "") + ":")
    for name in CONSTANTS:
        print(f"  {name:<22} {getattr(model, name)}{'   (--set)' if name in sets else ''}")

    kinds = [int(k) for k in args.kinds.split(",") if k.strip()] or list(range(len(library.HONEST)))
    tasks = [
        (ASSISTED, k, n, p, args.assisted_games, args.seed, True)
        for k, p in enumerate(library.ASSISTED)
        for n in range(args.assisted_accounts)
    ]
    tasks += [
        (HONEST, k, n, library.HONEST[k], args.games, args.seed, False)
        for k in kinds
        for n in range(args.accounts)
    ]
    tasks.sort(key=lambda t: -t[4])  # the longest first
    print(f"\n{len(tasks)} accounts on {args.workers} processes (seed {args.seed})", flush=True)
    results = []
    context = multiprocessing.get_context("spawn")  # each worker starts as a fresh server process would
    with context.Pool(args.workers, initializer=init_worker, initargs=(sets,)) as pool:
        for n, r in enumerate(pool.imap_unordered(run_account, tasks), start=1):
            results.append(r)
            if n % max(1, len(tasks) // 20) == 0:
                elapsed = time.perf_counter() - started
                print(f"  {n}/{len(tasks)} accounts, {elapsed:.0f} s", file=sys.stderr, flush=True)
    played = sum(r["games"] for r in results)
    print(f"{played} games in {time.perf_counter() - started:.0f} s")

    out = {"constants": {n: getattr(model, n) for n in CONSTANTS}, "overrides": list(sets), "seed": args.seed}
    out["honest"] = honest_rows(results, kinds, args.games)
    out["assisted"] = assisted_rows(results, args.assisted_games)
    if args.cost_games:
        out["cost"] = costs(args.cost_games, args.seed)
    out["wall_seconds"] = round(time.perf_counter() - started, 1)
    print(f"\nwall time {out['wall_seconds']:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1, default=str))


if __name__ == "__main__":
    main()
