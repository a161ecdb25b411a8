"""Benchmark: the fair-play line (`fairplay.model.verdict`) on simulated players, and what its signals cost.

1. Honest players. For each of the honest population (`fairplay.simulate.HONEST`, strongest first),
   N accounts (--accounts, default 10) of G solo games each (--games, default 100): 10,000 games by
   default. Every account's games go into `verdict` one at a time, the line checked after every game as
   the site does. Per player it prints the mean total, the share of best choices, the informative
   decisions a game, the fitted temperature (the verdict's, and the honest hypothesis's alone: an account
   whose honest fit is T_MIN plays better than the grid allows, and its evidence grows with every game),
   the evidence (p99 over every check, the highest; and the highest of its parts: choices, times, hidden
   page), the accounts flagged (the aim: none) and the games that were "suspicious" on their own.
   --honest picks players by their index in HONEST (default all).
2. The strongest honest player's false-flag rate: --strong-accounts more accounts of HONEST[0] (default
   100; --strong picks another index) of G games each; flagged / accounts with a one-sided 95% upper
   bound (the rule of three, 3/n, when none is flagged).
3. Assisted players (--assisted, "share:temperature" pairs; the solver's choice on that share of the
   decisions, a Boltzmann player of that temperature on the rest, at a solver user's steady pace on the
   solver's decisions): --assisted-accounts accounts each (default 30), up to --assisted-games games
   (default 100), stopping at the flag. Prints the games until flagged (median, p90, max; accounts never
   flagged within the limit count as later than it), and when each part of the line was first met (the
   evidence, the suspicious games). The aim: the always-optimal player flagged within 10 games.
4. Cost per game, in this process after the pool is done (the per-state caches warm, as in a server
   that has been running): (a) the baseline, a bare game (the strategy's lookups and a Boltzmann
   player's picks, nothing recorded); the simulator's game (`simulate.play`: also each decision's rules
   of thumb and time); the stored analysis of a game (`analysis.analyse_game`, which the site already
   computes); `positions.from_analysis` on it (the decisions with their rules of thumb, as the site gets
   a real game's); (b) `game_signals` on the decisions; (c) `verdict` over 100 games. Medians and p99s
   in ms, and the ratios to the bare game.

Accounts run in a process pool (--workers, default all cores); each account's dice and choices come
from its own generator seeded by (--seed, its group, its number), so a run is reproducible whatever the
scheduling. --set NAME=VALUE overrides a constant of fairplay.model for the run (in every worker), to
try a change to the line before making it (TEMPERATURES=low:high:count for a geometric grid). --quick
is a short run; a count of 0 (--strong-accounts, --cost-games) or an empty --assisted skips that part.

    .venv/bin/python bench/fairplay.py [--honest 0,2,...] [--accounts N] [--games G] [--strong-accounts S]
        [--assisted 1:2,0.5:0.75,...] [--assisted-accounts A] [--assisted-games M] [--workers W]
        [--seed K] [--set FLAG_EVIDENCE=14 --set TEMPERATURES=0.6:24:31 ...] [--quick] [--json PATH]
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
from fairplay import model, positions, simulate  # noqa: E402

CONSTANTS = (
    "MARGIN",
    "T_MIN",
    "TEMPERATURES",
    "SHARES",
    "HABITS",
    "ASSISTED_TIME_SPREAD",
    "HONEST_TIME_SPREAD",
    "MIN_TIMED",
    "TIME_CAP",
    "HIDDEN_WEIGHT",
    "HIDDEN_CAP",
    "FLAG_EVIDENCE",
    "GAME_EVIDENCE",
    "MIN_SUSPICIOUS_GAMES",
    "MIN_SUSPICIOUS_SHARE",
)
# The grid's mask of valid shares is computed from these at import: overriding them would not reach it.
FIXED = ("SHARES", "HABITS")
STRONG, ASSISTED = 100, 200  # seed groups; the honest players are 0-9
GAME_COUNTS = ("median", "p90", "max", "line_median", "suspicious_median")

_strategy: Strategy | None = None


def parse_sets(items: list[str]) -> dict[str, object]:
    out = {}
    for item in items:
        name, _, text = item.partition("=")
        name = name.strip().upper()
        if name not in CONSTANTS or name in FIXED:
            raise SystemExit(f"--set {name}: not one of {', '.join(c for c in CONSTANTS if c not in FIXED)}")
        if name == "TEMPERATURES" and ":" in text:  # low:high:count, spaced geometrically as the model's
            low, high, count = text.split(":")
            out[name] = tuple(float(t) for t in np.geomspace(float(low), float(high), int(count)))
            continue
        value = ast.literal_eval(text.strip())
        out[name] = tuple(float(t) for t in value) if name == "TEMPERATURES" else value
    return out


def apply_sets(sets: dict[str, object]) -> None:
    """The model reads its constants at call time, so rebinding the module's names is enough."""
    for name, value in sets.items():
        setattr(model, name, value)
    # T_MIN is only a name for the grid's first temperature: keep the two together.
    if "T_MIN" in sets and "TEMPERATURES" not in sets:
        old = model.TEMPERATURES
        model.TEMPERATURES = tuple(float(t) for t in np.geomspace(sets["T_MIN"], old[-1], len(old)))
    model.T_MIN = model.TEMPERATURES[0]


def init_worker(sets: dict[str, object]) -> None:
    global _strategy
    apply_sets(sets)
    _strategy = Strategy.shared()


def run_account(task: tuple) -> dict:
    """One account's games, the line checked after each; stops at the flag when asked to."""
    group, number, player, games, seed, stop = task
    rng = np.random.default_rng([seed, group, number])
    signals = []
    out = {
        "group": group,
        "total": 0,
        "informative": 0,
        "best": 0,
        "evidence": [],
        "choice_max": 0.0,
        "time_max": 0.0,
        "hidden_max": 0.0,
        "flagged_at": None,
        "line_at": None,
        "suspicious_at": None,
    }
    v = None
    table = model.empty_table()
    for g in range(1, games + 1):
        decisions, total = simulate.play(_strategy, player, rng)
        s = model.game_signals(decisions)
        signals.append(s)
        table = table + s.table
        v = model.verdict(signals)
        out["total"] += total
        out["informative"] += s.decisions
        out["best"] += s.best
        out["evidence"].append(round(v.evidence, 3))
        out["choice_max"] = max(out["choice_max"], v.choice)
        out["time_max"] = max(out["time_max"], v.time)
        out["hidden_max"] = max(out["hidden_max"], v.hidden)
        if out["line_at"] is None and v.evidence >= model.FLAG_EVIDENCE:
            out["line_at"] = g
        if out["suspicious_at"] is None and v.suspicious_games >= model.MIN_SUSPICIOUS_GAMES:
            out["suspicious_at"] = g
        if v.flagged and out["flagged_at"] is None:
            out["flagged_at"] = g
            out["at_flag"] = {"choice": v.choice, "time": v.time, "share": v.share}
            if stop:
                break
    out.update(
        games=len(signals),
        suspicious=v.suspicious_games,
        temperature=v.temperature,
        share=v.share,
        honest_temperature=model.TEMPERATURES[int(table[:, 0].max(axis=(1, 2)).argmax())],
        evidence_max=max(out["evidence"]),
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


def games_text(value: float, limit: int) -> str:
    return f">{limit}" if math.isinf(value) else f"{value:g}"


def honest_rows(results: list[dict], players: list[tuple[int, simulate.Player]], games: int) -> list[dict]:
    print(f"\n1. Honest players: accounts of {games} games, the line checked after every game")
    print("   fit T: the verdict's (the assisted fit's once there is evidence); honest T: the honest fit's,")
    print("   @T_MIN: accounts whose honest fit is the grid's strongest temperature (too good for the grid)")
    head = (
        f"{'player':<28} {'accts':>5} {'mean':>6} {'best':>6} {'info/g':>6} {'fit T':>5} {'hon T':>5} "
        f"{'@T_MIN':>6} {'ev p99':>6} {'ev max':>6} {'choice':>6} {'time':>5} {'hidden':>6} {'flagged':>7} "
        f"{'suspicious':>13} {'max':>3}"
    )
    print(head)
    print("-" * len(head))
    rows = []
    for i, player in players:
        accts = [r for r in results if r["group"] == i]
        n_games = sum(r["games"] for r in accts)
        checks = [e for r in accts for e in r["evidence"]]
        row = {
            "player": player.label,
            "accounts": len(accts),
            "games": n_games,
            "mean_total": round(sum(r["total"] for r in accts) / n_games, 1),
            "best_share": round(sum(r["best"] for r in accts) / sum(r["informative"] for r in accts), 3),
            "informative_per_game": round(sum(r["informative"] for r in accts) / n_games, 1),
            "fitted_temperature": round(statistics.median(r["temperature"] for r in accts), 2),
            "honest_temperature": round(statistics.median(r["honest_temperature"] for r in accts), 2),
            "at_t_min": sum(r["honest_temperature"] <= model.T_MIN for r in accts),
            "evidence_p99": round(p_index(checks, 0.99), 2),
            "evidence_max": round(max(checks), 2),
            "choice_max": round(max(r["choice_max"] for r in accts), 2),
            "time_max": round(max(r["time_max"] for r in accts), 2),
            "hidden_max": round(max(r["hidden_max"] for r in accts), 2),
            "flagged": sum(r["flagged_at"] is not None for r in accts),
            "suspicious_games": sum(r["suspicious"] for r in accts),
            "suspicious_max": max(r["suspicious"] for r in accts),
        }
        rows.append(row)
        suspicious = row["suspicious_games"]
        print(
            f"{row['player']:<28} {row['accounts']:>5} {row['mean_total']:>6.1f} {row['best_share']:>6.1%} "
            f"{row['informative_per_game']:>6.1f} {row['fitted_temperature']:>5.2f} "
            f"{row['honest_temperature']:>5.2f} {row['at_t_min']:>6} "
            f"{row['evidence_p99']:>6.2f} {row['evidence_max']:>6.2f} {row['choice_max']:>6.2f} "
            f"{row['time_max']:>5.2f} {row['hidden_max']:>6.2f} {row['flagged']:>7} "
            f"{suspicious:>5} ({suspicious / n_games:>5.2%}) {row['suspicious_max']:>3}"
        )
    flagged = sum(r["flagged"] for r in rows)
    accounts = sum(r["accounts"] for r in rows)
    total_games = sum(r["games"] for r in rows)
    worst = max(rows, key=lambda r: r["evidence_max"])
    print(
        f"accounts flagged: {flagged} of {accounts} ({total_games} games; aim 0: "
        f"{'met' if flagged == 0 else 'NOT met'}); highest evidence {worst['evidence_max']:.2f} "
        f"({worst['player']}) against the line's {model.FLAG_EVIDENCE:g}; most suspicious games in an "
        f"account: {max(r['suspicious_max'] for r in rows)} (the line needs {model.MIN_SUSPICIOUS_GAMES})"
    )
    edge = [f"{r['player']} ({r['at_t_min']})" for r in rows if r["at_t_min"]]
    if edge:
        print(
            f"note: honest fit at T_MIN = {model.T_MIN:.2f}, the grid's edge, for {', '.join(edge)}: their "
            "evidence grows with every game (nobody honest may be better than the grid's best)"
        )
    print("(the simulated players never hide the page: the hidden-page evidence is 0 throughout)")
    return rows


def strong_row(results: list[dict], player, games: int) -> dict:
    accts = [r for r in results if r["group"] == STRONG]
    flagged = sum(r["flagged_at"] is not None for r in accts)
    checks = [e for r in accts for e in r["evidence"]]
    row = {
        "player": player.label,
        "accounts": len(accts),
        "games": sum(r["games"] for r in accts),
        "flagged": flagged,
        "rate": flagged / len(accts),
        "upper95": upper95(flagged, len(accts)),
        "evidence_p99": round(p_index(checks, 0.99), 2),
        "evidence_max": round(max(checks), 2),
        "suspicious_max": max(r["suspicious"] for r in accts),
    }
    print(f"\n2. The false-flag rate of {player.label}: {len(accts)} more accounts of {games} games")
    bound = "rule of three" if flagged == 0 else "Clopper-Pearson"
    print(
        f"flagged {flagged} of {len(accts)} accounts: {row['rate']:.1%} "
        f"(95% upper bound {row['upper95']:.1%}, {bound}); evidence p99 {row['evidence_p99']:.2f}, "
        f"max {row['evidence_max']:.2f}; "
        f"most suspicious games in an account {row['suspicious_max']}"
    )
    return row


def assisted_rows(results: list[dict], players, limit: int) -> list[dict]:
    print(f"\n3. Assisted players: games until flagged (at most {limit}; never flagged counts as >{limit})")
    susp_at = f"{model.MIN_SUSPICIOUS_GAMES} susp at"
    head = (
        f"{'player':<30} {'accts':>5} {'mean':>6} {'best':>5} {'median':>6} {'p90':>5} {'max':>5} "
        f"{'never':>5} {'line at':>7} {susp_at:>9} {'choice@flag':>11} {'time@flag':>9} {'fit f':>5}"
    )
    print(head)
    print("-" * len(head))
    rows = []
    for i, player in enumerate(players):
        accts = [r for r in results if r["group"] == ASSISTED + i]
        at = [r["flagged_at"] if r["flagged_at"] is not None else math.inf for r in accts]
        line = [r["line_at"] if r["line_at"] is not None else math.inf for r in accts]
        susp = [r["suspicious_at"] if r["suspicious_at"] is not None else math.inf for r in accts]
        flags = [r["at_flag"] for r in accts if "at_flag" in r]
        n_games = sum(r["games"] for r in accts)
        row = {
            "player": player.label,
            "accounts": len(accts),
            "mean_total": round(sum(r["total"] for r in accts) / n_games, 1),
            "best_share": round(sum(r["best"] for r in accts) / sum(r["informative"] for r in accts), 3),
            "median": p_index(at, 0.5),
            "p90": p_index(at, 0.9),
            "max": max(at),
            "never": sum(math.isinf(a) for a in at),
            "line_median": p_index(line, 0.5),
            "suspicious_median": p_index(susp, 0.5),
            "choice_at_flag": round(statistics.median(f["choice"] for f in flags), 1) if flags else None,
            "time_at_flag": round(statistics.median(f["time"] for f in flags), 2) if flags else None,
            "share_at_flag": statistics.median(f["share"] for f in flags) if flags else None,
        }
        rows.append(row)
        t = {k: games_text(row[k], limit) for k in GAME_COUNTS}
        print(
            f"{row['player']:<30} {row['accounts']:>5} {row['mean_total']:>6.1f} {row['best_share']:>5.1%} "
            f"{t['median']:>6} {t['p90']:>5} {t['max']:>5} {row['never']:>5} {t['line_median']:>7} "
            f"{t['suspicious_median']:>9} {row['choice_at_flag'] if flags else '-':>11} "
            f"{row['time_at_flag'] if flags else '-':>9} {row['share_at_flag'] if flags else '-':>5}"
        )
    print(f"(line at / {susp_at}: the median game at which the evidence reached the line / the account had")
    print(
        f" {model.MIN_SUSPICIOUS_GAMES} suspicious games; the flag needs both, and "
        f"{model.MIN_SUSPICIOUS_SHARE:.0%} of the games suspicious)"
    )
    for row in rows:
        if row["player"].startswith("solver on 100%"):
            ok = row["p90"] <= 10
            p90 = games_text(row["p90"], limit)
            print(f"always-optimal flagged within 10 games at p90: {'met' if ok else 'NOT met'} (p90 {p90})")
            row["aim_met"] = ok
    for row in rows:
        for k in GAME_COUNTS:
            row[k] = None if math.isinf(row[k]) else row[k]
    return rows


def bare_game(strategy: Strategy, rng: np.random.Generator, temperature: float = 2.0) -> int:
    """The game itself: the strategy's lookups and a Boltzmann player's picks, nothing recorded."""
    sheet = Scoresheet()
    for _turn in range(len(Box)):
        dice = tuple(sorted(int(v) for v in rng.integers(1, 7, 5)))
        for rolls_left in (2, 1):
            choices = A.keep_choices(strategy, sheet, dice, rolls_left)
            keep = choices[simulate.boltzmann_pick(rng, choices, temperature)].keep
            if len(keep) == 5:
                break
            dice = tuple(sorted((*keep, *(int(v) for v in rng.integers(1, 7, 5 - len(keep))))))
        choices = strategy.evaluate(sheet, dice, 0)
        sheet = sheet.place(choices[simulate.boltzmann_pick(rng, choices, temperature)].box, dice)
    return sheet.total


def figures(name: str, seconds: list[float]) -> dict:
    ms = [s * 1000 for s in seconds]
    out = {"n": len(ms), "median_ms": round(statistics.median(ms), 3), "p99_ms": round(p_index(ms, 0.99), 3)}
    print(f"{name:>44}: median {out['median_ms']:8.3f} ms   p99 {out['p99_ms']:8.3f} ms   (n={len(ms)})")
    return out


def costs(samples: int, seed: int) -> dict:
    strategy = Strategy.shared()
    rng = np.random.default_rng([seed, 999])
    player = simulate.HONEST[5]  # Boltzmann T=2, as the bare game
    timed: dict[str, list[float]] = {k: [] for k in ("bare", "play", "analysis", "positions", "signals")}
    signals = []
    for i in range(samples + 5):
        t0 = time.perf_counter()
        bare_game(strategy, rng)
        t1 = time.perf_counter()
        simulate.play(strategy, player, rng)
        t2 = time.perf_counter()
        game = simulate.play_game(strategy, player, rng)
        logs, seconds = game.turns, game.seconds
        t3 = time.perf_counter()
        data = A.analyse_game(logs, [0], strategy)
        t4 = time.perf_counter()
        from_site = positions.from_analysis(data, 0, seconds)
        t5 = time.perf_counter()
        signals.append(model.game_signals(from_site))
        t6 = time.perf_counter()
        if i < 5:
            continue  # the first games fill the caches
        for key, seconds_taken in zip(timed, (t1 - t0, t2 - t1, t4 - t3, t5 - t4, t6 - t5), strict=True):
            timed[key].append(seconds_taken)
    verdicts = []
    for r in range(samples):
        window = [signals[(r + j) % len(signals)] for j in range(100)]
        t = time.perf_counter()
        model.verdict(window)
        verdicts.append(time.perf_counter() - t)
    print(f"\n4. Cost per game ({samples} games of {player.label}; caches warm)")
    out = {
        "bare_game": figures("(a) baseline: a bare game (strategy lookups)", timed["bare"]),
        "simulate_play": figures("the simulator's game (simulate.play)", timed["play"]),
        "analyse_game": figures("the stored analysis (analyse_game, 1 seat)", timed["analysis"]),
        "from_analysis": figures("positions.from_analysis on it", timed["positions"]),
        "game_signals": figures("(b) game_signals on its decisions", timed["signals"]),
        "verdict_100": figures("(c) verdict over 100 games", verdicts),
    }
    base = out["bare_game"]["median_ms"]
    b = out["game_signals"]["median_ms"]
    site = out["from_analysis"]["median_ms"] + b
    out["ratio_signals"] = round(b / base, 3)
    out["ratio_site"] = round(site / base, 3)
    out["ratio_site_to_analysis"] = round(site / out["analyse_game"]["median_ms"], 3)
    print(f"{'(b) / (a)':>44}: {out['ratio_signals']:.2f} x")
    print(
        f"{'(from_analysis + b) / (a)':>44}: {out['ratio_site']:.2f} x   (a real game's signals; "
        f"{out['ratio_site_to_analysis']:.2f} x its analysis)"
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accounts", type=int, default=10, help="accounts per honest player")
    parser.add_argument("--games", type=int, default=100, help="games per honest account")
    parser.add_argument(
        "--honest", default=",".join(str(i) for i in range(len(simulate.HONEST))), help="HONEST indices"
    )
    parser.add_argument("--strong-accounts", type=int, default=100, help="more accounts of HONEST[--strong]")
    parser.add_argument("--strong", type=int, default=0, help="the index in HONEST of that player")
    parser.add_argument("--assisted", default="1:2,0.5:0.75,0.5:2,0.5:4,0.25:2", help="share:temperature,...")
    parser.add_argument("--assisted-accounts", type=int, default=30)
    parser.add_argument("--assisted-games", type=int, default=100, help="at most this many games per account")
    parser.add_argument("--cost-games", type=int, default=200, help="games timed for the cost")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a model constant")
    parser.add_argument("--quick", action="store_true", help="a short run (a few accounts, fewer games)")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    if args.quick:  # smaller defaults; what the command line names stays
        small = {"accounts": 2, "games": 30, "strong_accounts": 10, "assisted_accounts": 5}
        for name, value in {**small, "assisted_games": 50, "cost_games": 30}.items():
            if getattr(args, name) == parser.get_default(name):
                setattr(args, name, value)
    sets = parse_sets(args.set)
    apply_sets(sets)
    started = time.perf_counter()

    print("fairplay.model constants" + (" (overridden: " + ", ".join(sets) + ")" if sets else "") + ":")
    for name in CONSTANTS:
        value = getattr(model, name)
        if name == "TEMPERATURES":
            value = f"{len(value)} from {value[0]:.3g} to {value[-1]:.3g} (steps x{value[1] / value[0]:.3f})"
        elif isinstance(value, float):
            value = f"{value:.4g}"
        print(f"  {name:<22} {value}{'   (--set)' if name in sets else ''}")

    honest = [(i, simulate.HONEST[i]) for i in sorted({int(x) for x in args.honest.split(",") if x.strip()})]
    assisted = []
    for pair in filter(None, args.assisted.split(",")):
        share, _, temperature = pair.partition(":")
        assisted.append(simulate.Player("assisted", share=float(share), temperature=float(temperature or 2)))
    strong = simulate.HONEST[args.strong]
    tasks = [
        (ASSISTED + i, k, p, args.assisted_games, args.seed, True)
        for i, p in sorted(enumerate(assisted), key=lambda ip: ip[1].share)  # the longest first
        for k in range(args.assisted_accounts)
    ]
    tasks += [(STRONG, k, strong, args.games, args.seed, False) for k in range(args.strong_accounts)]
    tasks += [(i, k, p, args.games, args.seed, False) for i, p in honest for k in range(args.accounts)]
    print(f"\n{len(tasks)} accounts on {args.workers} processes (seed {args.seed})", flush=True)
    results = []
    # Spawned, not forked: each worker starts as a fresh server process would (no inherited caches).
    context = multiprocessing.get_context("spawn")
    with context.Pool(args.workers, initializer=init_worker, initargs=(sets,)) as pool:
        for n, r in enumerate(pool.imap_unordered(run_account, tasks), start=1):
            results.append(r)
            if n % max(1, len(tasks) // 10) == 0:
                elapsed = time.perf_counter() - started
                print(f"  {n}/{len(tasks)} accounts, {elapsed:.0f} s", file=sys.stderr, flush=True)
    games_played = sum(r["games"] for r in results)
    pool_seconds = time.perf_counter() - started
    print(f"{games_played} games in {pool_seconds:.0f} s")

    out = {"constants": {n: getattr(model, n) for n in CONSTANTS}, "overrides": list(sets), "seed": args.seed}
    if honest:
        out["honest"] = honest_rows(results, honest, args.games)
    if args.strong_accounts:
        out["strongest"] = strong_row(results, strong, args.games)
    if assisted:
        out["assisted"] = assisted_rows(results, assisted, args.assisted_games)
    if args.cost_games:
        out["cost"] = costs(args.cost_games, args.seed)
    out["wall_seconds"] = round(time.perf_counter() - started, 1)
    print(f"\nwall time {out['wall_seconds']:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1, default=str))


if __name__ == "__main__":
    main()
