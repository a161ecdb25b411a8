"""The fair-play model: how strongly a person's choices say "a solver chose these" rather than "an honest
player with this person's habits and judgement chose them". Pure: no Django (it runs on stored analyses
and on simulated people alike, `fairplay.simulate`). docs/fair-play.md says why it is built this way.

An informative decision (the best choice ahead of the second by at least MARGIN expected points) is
explained by a mixture, fitted to each person's own decisions:

- **habits**: each rule of a panel of rules of thumb (`fairplay.habits`: keep the largest group, keep a
  straight, write where it scores most, ...) names a choice, and the person follows rule j with a weight
  of their own; the weights are learned from the person's games, per kind of decision (the hold after
  the first roll, after the second, the box). A person who plays by rules, whatever rules, is explained
  by the rules they keep following, right or wrong;
- **judgement**: a choice with probability proportional to exp(value / T) (Boltzmann-rational: the
  better, the likelier), T of their own per kind of decision;
- **help**: the solver's best choice, on a share f of all the decisions.

Honest players may have f up to ALLOWANCE: decisions where their own rules, which no panel knows,
happen to be the solver's. The evidence is

    evidence = max log L (f <= 1) - max log L (f <= ALLOWANCE)   >= 0,

both maxima over the habits' weights and the temperatures, found by expectation-maximisation. For an
honest player it levels off with the number of games (the fitted share stays under the allowance); for
a solver's user on more than the allowance, it grows with every informative decision. What the model
cannot tell apart is play at the solver's own level: a person who finds the best choice nearly always
looks like the solver, and staff decide (the machine only flags).

Decision times are a weak signal (a solver in another window answers at a steady pace whatever the
position: the spread of the log-times is small), and so is the page being hidden during one's turn;
each is capped (TIME_CAP, HIDDEN_CAP) so that neither can flag anyone alone. `verdict` applies the line.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from fairplay import habits

# Bump when the stored records or the model's meaning change: stored signals of another version are
# assessed again from their games' analyses. 3: the habits learned per person, a temperature per kind.
MODEL_VERSION = 3

# Decisions whose best choice is ahead of the second best by less than this many expected points are
# near ties: which of them a player takes tells little about help (docs/fair-play.md: why 0.2).
MARGIN = 0.2
# The temperatures of judgement (expected points), per kind of decision. T_MIN is below the fitted
# temperature of every honest simulated player but those at the solver's level (bench/fairplay.py).
TEMPERATURES = tuple(float(t) for t in np.geomspace(0.5, 24.0, 25))
T_MIN = TEMPERATURES[0]
# The share of the decisions any honest player may take "as the solver would" beyond what their habits
# and judgement explain (their own rules, unknown to the panel, happen to be right): calibrated on the
# library of honest players, none of which the fit gives more than 0.21 (bench/fairplay.py).
ALLOWANCE = 0.25
# Pseudo-counts on the habits' weights (a Dirichlet prior): a rule a person has not been seen following
# keeps a little weight, so one game's fit is not certain of anything.
PRIOR = 0.5
# The fit stops when an iteration adds less than this to the log-likelihood, or after ITERATIONS.
TOLERANCE = 1e-4
ITERATIONS = 300
# An account's evidence is over its last GAMES_WEIGHED assessed games at most (its cost stays bounded).
GAMES_WEIGHED = 300

HOLD_FIRST, HOLD_SECOND, BOX = 0, 1, 2
KINDS = (HOLD_FIRST, HOLD_SECOND, BOX)
RULES = (len(habits.HOLDS), len(habits.HOLDS), len(habits.BOXES))  # the panel's rules per kind

# The log-times of a solver user's decisions spread by about this much; an honest player's by at least
# HONEST_TIME_SPREAD (a human takes longer on hard positions, less on easy ones).
ASSISTED_TIME_SPREAD = 0.25
HONEST_TIME_SPREAD = 0.45
MIN_TIMED = 20  # decisions with a time before the times say anything
TIME_CAP = 3.0
HIDDEN_WEIGHT = 0.1  # per time the page was hidden during one's own turn
HIDDEN_CAP = 1.5

# The line (calibrated in bench/fairplay.py: in 10,000 simulated honest games no account reaches it).
FLAG_EVIDENCE = 16.0
# A game whose own evidence reaches this is a "suspicious game".
GAME_EVIDENCE = 2.0
MIN_SUSPICIOUS_GAMES = 3  # as lichess: at least 3 such games ...
MIN_SUSPICIOUS_SHARE = 0.10  # ... making up at least 10% of the assessed games


@dataclass(frozen=True)
class Decision:
    """One decision as the model sees it: the expected final totals of the best choices (best first,
    as the analysis stores them), which of them was taken (None: one further down, worth
    `chosen_value`), the seconds from the dice being shown to the decision (None: unknown), its kind,
    and which of the panel's rules of thumb take the choice taken (bit i: rule i of `habits`)."""

    values: tuple[float, ...]
    chosen: int | None
    chosen_value: float
    seconds: float | None = None
    kind: int = BOX
    rules: int = 0

    @property
    def margin(self) -> float:
        return self.values[0] - self.values[1] if len(self.values) > 1 else math.inf

    @property
    def informative(self) -> bool:
        return len(self.values) > 1 and self.margin >= MARGIN

    @property
    def best(self) -> bool:
        return self.chosen == 0


# -- the records: what a game keeps of its informative decisions ------------------------------------------

# Per informative decision: its kind, the index taken (3: below the stored choices), the panel's rules
# taking it, and how far below the best the second, third and taken choices are (NaN: no such choice).
RECORD = np.dtype([("kind", "u1"), ("chosen", "u1"), ("rules", "<u4"), ("behind", "<f4", (3,))])


def records(decisions: Iterable[Decision]) -> np.ndarray:
    rows = []
    for d in decisions:
        if not d.informative:
            continue
        behind = [d.values[0] - v for v in d.values[1:3]]
        behind += [math.nan] * (2 - len(behind)) + [d.values[0] - d.chosen_value]
        rows.append((d.kind, 3 if d.chosen is None else d.chosen, d.rules, behind))
    return np.array(rows, dtype=RECORD)


def pack(rows: np.ndarray) -> bytes:
    return zlib.compress(np.ascontiguousarray(rows, dtype=RECORD).tobytes())


def unpack(data: bytes) -> np.ndarray:
    return np.frombuffer(zlib.decompress(data), dtype=RECORD).copy()


def _judgement(rows: np.ndarray) -> np.ndarray:
    """(n, len(TEMPERATURES)): the probability of the choice taken under judgement at each temperature,
    over the choices known (the stored best ones, and the one taken if it was further down)."""
    n = len(rows)
    behind = np.full((n, 4), np.inf)
    behind[:, 0] = 0.0
    behind[:, 1:3] = np.nan_to_num(rows["behind"][:, :2].astype(float), nan=np.inf)
    below = rows["chosen"] == 3
    behind[below, 3] = rows["behind"][below, 2]
    taken = rows["chosen"].astype(int)
    w = np.exp(-behind[:, None, :] / np.array(TEMPERATURES)[None, :, None])
    return w[np.arange(n), :, taken] / w.sum(axis=2)


# -- the fit ----------------------------------------------------------------------------------------------

_OWN = max(RULES)  # the column of judgement among the components: after the rules
_VALID = np.zeros((len(KINDS), _OWN + 1), dtype=bool)
for _k, _n in zip(KINDS, RULES, strict=True):
    _VALID[_k, :_n] = True
    _VALID[_k, _OWN] = True


@dataclass
class Fit:
    """A fitted mixture: the solver's share, each kind's weights of the panel's rules and of judgement
    (a row per kind), each kind's temperature (an index into TEMPERATURES), and the objective reached
    (the log-likelihood plus the prior's log-density)."""

    share: float
    weights: np.ndarray
    temperatures: np.ndarray
    objective: float = -math.inf

    @classmethod
    def start(cls, share: float = 0.0) -> Fit:
        weights = _VALID / _VALID.sum(axis=1, keepdims=True)
        return cls(share, weights, np.full(len(KINDS), len(TEMPERATURES) // 2))

    def copy(self, **changes) -> Fit:
        fit = Fit(self.share, self.weights.copy(), self.temperatures.copy(), self.objective)
        for name, value in changes.items():
            setattr(fit, name, value)
        return fit

    @property
    def temperature(self) -> float:
        """The temperatures of the three kinds in one figure (their geometric mean)."""
        return float(np.exp(np.mean(np.log([TEMPERATURES[t] for t in self.temperatures]))))


@dataclass(frozen=True)
class Prepared:
    """An account's informative decisions, ready for fitting."""

    kind: np.ndarray
    best: np.ndarray
    rules: np.ndarray  # (n, max(RULES)): 1 where the rule takes the choice taken
    judgement: np.ndarray
    log_judgement: np.ndarray

    @classmethod
    def of(cls, rows: np.ndarray) -> Prepared:
        p = _judgement(rows)
        bits = rows["rules"][:, None] >> np.arange(_OWN)[None, :] & 1
        return cls(
            rows["kind"].astype(int),
            (rows["chosen"] == 0).astype(float),
            bits.astype(float),
            p,
            np.log(np.maximum(p, 1e-300)),
        )

    def __len__(self) -> int:
        return len(self.kind)


def fit(data: Prepared, start: Fit, most: float) -> Fit:
    """Expectation-maximisation of the mixture from `start`, the solver's share at most `most`."""
    fit = start.copy(share=min(start.share, most))
    if most > 0 and fit.share <= 0:
        fit.share = most / 2  # a share of 0 would stay 0
    n = len(data)
    if n == 0:
        return fit.copy(objective=0.0)
    by_kind = np.eye(len(KINDS))[data.kind]
    rows = np.arange(n)
    for _ in range(ITERATIONS):
        components = np.concatenate(
            [data.rules, data.judgement[rows, fit.temperatures[data.kind]][:, None]], 1
        )
        parts = fit.weights[data.kind] * components
        p = np.maximum(fit.share * data.best + (1.0 - fit.share) * parts.sum(axis=1), 1e-300)
        prior = PRIOR * float(np.log(fit.weights[_VALID]).sum())
        objective = float(np.log(p).sum()) + prior
        if objective - fit.objective < TOLERANCE:
            fit.objective = max(objective, fit.objective)
            break
        fit.objective = objective
        # Each decision's share of responsibility of the solver and of each component.
        solver = fit.share * data.best / p
        owned = (1.0 - fit.share) * parts / p[:, None]
        fit.share = min(most, float(solver.mean())) if most > 0 else 0.0
        counts = np.where(_VALID, by_kind.T @ owned + PRIOR, 0.0)
        fit.weights = counts / counts.sum(axis=1, keepdims=True)
        weighted = (by_kind * owned[:, _OWN : _OWN + 1]).T @ data.log_judgement
        fit.temperatures = weighted.argmax(axis=1)
    return fit


@dataclass(frozen=True)
class Fits:
    honest: Fit
    assisted: Fit

    @property
    def evidence(self) -> float:
        return max(0.0, self.assisted.objective - self.honest.objective)


def fits(data: Prepared, warm: Fits | None = None) -> Fits:
    """The honest fit (the solver's share at most ALLOWANCE) and the assisted one (at most 1), from a
    few starts (and `warm`, an earlier fit of fewer decisions): the assisted fit starts from the honest
    one too, so it is never the worse of the two."""
    honest = fit(
        data, (warm.honest if warm else Fit.start(ALLOWANCE / 2)).copy(objective=-math.inf), ALLOWANCE
    )
    starts = [honest, warm.assisted if warm else honest.copy(share=0.9)]
    assisted = max((fit(data, s.copy(objective=-math.inf), 1.0) for s in starts), key=lambda f: f.objective)
    return Fits(honest, assisted)


def choice_evidence(rows: np.ndarray) -> float:
    return fits(Prepared.of(rows)).evidence


# -- times and the hidden page ----------------------------------------------------------------------------


@dataclass
class TimeStats:
    """The sufficient statistics of the log-times: their count, sum and sum of squares."""

    n: int = 0
    total: float = 0.0
    squares: float = 0.0

    def add(self, seconds: float) -> None:
        x = math.log(max(seconds, 0.05))
        self.n += 1
        self.total += x
        self.squares += x * x

    def merge(self, other: TimeStats) -> TimeStats:
        return TimeStats(self.n + other.n, self.total + other.total, self.squares + other.squares)

    @property
    def mean_seconds(self) -> float | None:
        return math.exp(self.total / self.n) if self.n else None

    @property
    def spread(self) -> float | None:
        """The standard deviation of the log-times (a ratio: 0.25 is about +-28%)."""
        if self.n < 2:
            return None
        var = max(0.0, self.squares / self.n - (self.total / self.n) ** 2)
        return math.sqrt(var)


def time_stats(decisions: Iterable[Decision]) -> TimeStats:
    stats = TimeStats()
    for d in decisions:
        if d.informative and d.seconds is not None:
            stats.add(d.seconds)
    return stats


def time_evidence(stats: TimeStats) -> float:
    """How much likelier the spread of the log-times is under a solver's steady pace than under an
    honest player's (each with its own mean), capped at TIME_CAP; 0 with too few timed decisions."""
    s = stats.spread
    if s is None or stats.n < MIN_TIMED:
        return 0.0

    def ll(sigma: float) -> float:  # the normal log-likelihood of n log-times at their own mean
        return -stats.n * math.log(sigma) - stats.n * s * s / (2 * sigma * sigma)

    honest = ll(max(s, HONEST_TIME_SPREAD))
    assisted = ll(min(max(s, ASSISTED_TIME_SPREAD / 2), HONEST_TIME_SPREAD))
    return min(TIME_CAP, max(0.0, assisted - honest))


def hidden_evidence(hidden: int) -> float:
    return min(HIDDEN_CAP, HIDDEN_WEIGHT * max(0, hidden))


# -- a game, an account -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameSignals:
    """What one game says about one person (stored with the game): its informative decisions' records
    and the game's own evidence (worked out once, when the game is assessed)."""

    decisions: int  # informative decisions
    best: int  # of them, the best choice
    loss: float  # expected points given up on them
    records: np.ndarray
    times: TimeStats
    hidden: int = 0
    evidence: float = 0.0

    @property
    def best_share(self) -> float | None:
        return self.best / self.decisions if self.decisions else None


def game_signals(decisions: Sequence[Decision], hidden: int = 0) -> GameSignals:
    informative = [d for d in decisions if d.informative]
    rows = records(informative)
    return GameSignals(
        decisions=len(informative),
        best=sum(d.best for d in informative),
        loss=sum(max(0.0, d.values[0] - d.chosen_value) for d in informative),
        records=rows,
        times=time_stats(informative),
        hidden=hidden,
        evidence=choice_evidence(rows),
    )


@dataclass
class Verdict:
    games: int
    suspicious_games: int
    choice: float
    time: float
    hidden: float
    temperature: float
    share: float
    flagged: bool
    reasons: list[str] = field(default_factory=list)
    fits: Fits | None = None

    @property
    def evidence(self) -> float:
        return self.choice + self.time + self.hidden


def verdict(games: Sequence[GameSignals], warm: Fits | None = None) -> Verdict:
    """The account's evidence over its assessed games (the last GAMES_WEIGHED) and whether it crosses the
    line: the whole evidence reaches FLAG_EVIDENCE, the choices alone reach it less the weak signals'
    caps, and at least MIN_SUSPICIOUS_GAMES games (and MIN_SUSPICIOUS_SHARE of them) are suspicious on
    their own. `warm`: the fits of an earlier verdict on fewer of the same games (only faster)."""
    weighed = list(games)[-GAMES_WEIGHED:]
    rows = np.concatenate([g.records for g in weighed]) if weighed else records([])
    found = fits(Prepared.of(rows), warm)
    times = TimeStats()
    for g in weighed:
        times = times.merge(g.times)
    suspicious = sum(g.evidence >= GAME_EVIDENCE for g in weighed)
    choice = found.evidence
    v = Verdict(
        games=len(weighed),
        suspicious_games=suspicious,
        choice=choice,
        time=time_evidence(times),
        hidden=hidden_evidence(sum(g.hidden for g in weighed)),
        temperature=(found.assisted if choice > 0 else found.honest).temperature,
        share=found.assisted.share if choice > 0 else found.honest.share,
        flagged=False,
        fits=found,
    )
    v.flagged = (
        v.evidence >= FLAG_EVIDENCE
        and choice >= FLAG_EVIDENCE - TIME_CAP - HIDDEN_CAP
        and suspicious >= MIN_SUSPICIOUS_GAMES
        and suspicious >= MIN_SUSPICIOUS_SHARE * len(weighed)
    )
    return v
