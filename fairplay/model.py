"""The fair-play model: how strongly a person's choices say "a solver chose these" rather than "an honest
player of this person's skill chose them". Pure: no Django (it runs on stored analyses and on simulated
players alike, `fairplay.simulate`).

The evidence is a generalised likelihood ratio over the informative decisions of all of a person's
assessed games:

- An honest player of temperature T picks among the choices with probability proportional to
  exp(value / T) (values in expected final points; Boltzmann-rational: the better a choice, the likelier).
  Small T is a strong player. T is fitted per person (the most likely T of a grid whose smallest,
  T_MIN, is stronger than any honest player we simulate), so a strong honest player is compared with a
  strong honest player, not with an average one.
- People play by rules of thumb as much as by judgement: an honest player may also take, on shares a
  and b of the decisions, what a good rule of thumb takes (the medium computer's choice: exact within
  the turn, a formula for the rest of the sheet) or the points-now choice (the easy computer's). So the
  honest player is the mixture a * [rule of thumb] + b * [points now] + (1 - a - b) * Boltzmann(T).
- An assisted player takes the solver's best choice on a further share f of the decisions; f, a, b and
  T are fitted too.

evidence = max over (T, a, b, f > 0) of log L(assisted) - max over (T, a, b) of log L(honest) >= 0.
For an honest player of any temperature in the grid it stays small however many games they play (the
extra parameters buy a few chi-square degrees of freedom), while for a solver's user it grows with every
informative decision. Decisions where the best choice beats the second by less than MARGIN say
nothing either way (a near tie) and are left out; so are those with a single legal choice.

Decision times are a weak signal (a solver in another window answers at a steady pace whatever the
position: the spread of the log-times is small), and so is the page being hidden during one's turn;
each is capped (TIME_CAP, HIDDEN_CAP) so that neither can flag anyone alone. `verdict` applies the line.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

# Bump when the stored likelihood tables change shape or meaning (a grid, a part of the mixture): stored
# signals of another version are assessed again from their games' analyses.
MODEL_VERSION = 2

# Decisions whose best choice is ahead of the second best by less than this many expected points are
# near ties: which of them a player takes tells nothing about help.
MARGIN = 0.2
# The honest players' temperatures (expected points). T_MIN is below the strongest honest simulated
# player's fitted temperature (`bench/fairplay.py` prints them), so nobody honest is "too good". The grid
# is fine (steps of x1.13): on a coarse one (x1.28) a strong honest player's best temperature falls
# between two points, and the assisted fit's extra share makes up the gap, game after game (a Boltzmann
# T=0.5 player reached evidence 26 in 400 games; 6 on this grid).
TEMPERATURES = tuple(float(t) for t in np.geomspace(0.6, 24.0, 31))
T_MIN = TEMPERATURES[0]
# The share of decisions taken from the solver: 0 is honest, the rest is the assisted hypothesis.
SHARES = (0.0, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 0.97)
# The shares of the rules of thumb (a: the medium computer's choice, b: the points-now choice).
HABITS = (0.0, 0.2, 0.4, 0.6, 0.8)

# The log-times of a solver user's decisions spread by about this much; an honest player's by at least
# HONEST_TIME_SPREAD (a human takes longer on hard positions, less on easy ones).
ASSISTED_TIME_SPREAD = 0.25
HONEST_TIME_SPREAD = 0.45
MIN_TIMED = 20  # decisions with a time before the times say anything
TIME_CAP = 3.0
HIDDEN_WEIGHT = 0.1  # per time the page was hidden during one's own turn
HIDDEN_CAP = 1.5

# The line (calibrated in bench/fairplay.py: on 10,000 simulated honest games no account reaches it).
FLAG_EVIDENCE = 16.0
# A game whose own evidence reaches this is a "suspicious game". 2 rather than 3: at 3 a user of the solver
# on half the decisions reached the evidence line at game 10 but its third suspicious game only at 17;
# honest accounts stay far below the line either way (bench/fairplay.py).
GAME_EVIDENCE = 2.0
MIN_SUSPICIOUS_GAMES = 3  # as lichess: at least 3 such games ...
MIN_SUSPICIOUS_SHARE = 0.10  # ... making up at least 10% of the assessed games


@dataclass(frozen=True)
class Decision:
    """One decision as the model sees it: the expected final totals of the best choices (best first,
    as the analysis stores them), which of them was taken (None: one further down, worth
    `chosen_value`), and the seconds from the dice being shown to the decision (None: unknown)."""

    values: tuple[float, ...]
    chosen: int | None
    chosen_value: float
    seconds: float | None = None
    # Whether the choice taken is the rule of thumb's (the medium computer's), the points-now one's.
    thumb: bool = False
    greedy: bool = False

    @property
    def margin(self) -> float:
        return self.values[0] - self.values[1] if len(self.values) > 1 else math.inf

    @property
    def informative(self) -> bool:
        return len(self.values) > 1 and self.margin >= MARGIN

    @property
    def best(self) -> bool:
        return self.chosen == 0


def _probabilities(d: Decision, temps: np.ndarray) -> np.ndarray:
    """P(the choice taken) for an honest player of each temperature, over the choices known."""
    values = np.array(d.values if d.chosen is not None else (*d.values, d.chosen_value))
    k = d.chosen if d.chosen is not None else len(d.values)
    z = (values[None, :] - values[0]) / temps[:, None]
    z -= z.max(axis=1, keepdims=True)
    w = np.exp(z)
    return w[:, k] / w.sum(axis=1)


def _grid() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The weights of the mixture's parts over the grid (T, f, a, b), with f + a + b < 1 (cells past
    it get weight 0 for Boltzmann and are never the most likely: see `_valid`)."""
    f = np.array(SHARES)[:, None, None]
    a = np.array(HABITS)[None, :, None]
    b = np.array(HABITS)[None, None, :]
    rest = 1.0 - f - a - b
    return f, a, b, rest


_VALID = (
    1.0 - np.array(SHARES)[:, None, None] - np.array(HABITS)[None, :, None] - np.array(HABITS)[None, None, :]
) > 0.01


def likelihood_table(decisions: Iterable[Decision]) -> np.ndarray:
    """log L of the informative decisions for every (temperature, share, rule-of-thumb share,
    points-now share): the sufficient record of a game (tables add up over games). Cells whose shares
    add up to 1 or more are -inf."""
    temps = np.array(TEMPERATURES)
    f, a, b, rest = _grid()
    rest = np.where(_VALID, rest, 0.0)
    shape = (len(TEMPERATURES), *_VALID.shape)
    table = np.zeros(shape)
    for d in decisions:
        if not d.informative:
            continue
        p = _probabilities(d, temps)[:, None, None, None]
        fixed = f * float(d.best) + a * float(d.thumb) + b * float(d.greedy)
        table += np.log(np.maximum(fixed[None] + rest[None] * p, 1e-300))
    table[:, ~_VALID] = -np.inf
    return table


def empty_table() -> np.ndarray:
    table = np.zeros((len(TEMPERATURES), *_VALID.shape))
    table[:, ~_VALID] = -np.inf
    return table


def choice_evidence(table: np.ndarray) -> float:
    return max(0.0, float(table[:, 1:].max() - table[:, 0].max()))


def fitted(table: np.ndarray) -> tuple[float, float]:
    """(temperature, share) most likely under the assisted hypothesis; share 0 means honest fits best."""
    if choice_evidence(table) <= 0:
        t = np.unravel_index(int(table[:, 0].argmax()), table[:, 0].shape)[0]
        return TEMPERATURES[int(t)], 0.0
    t, f, _a, _b = np.unravel_index(int(table[:, 1:].argmax()), table[:, 1:].shape)
    return TEMPERATURES[int(t)], SHARES[int(f) + 1]


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


@dataclass(frozen=True)
class GameSignals:
    """What one game says about one person (stored with the game)."""

    decisions: int  # informative decisions
    best: int  # of them, the best choice
    loss: float  # expected points given up on them
    table: np.ndarray
    times: TimeStats
    hidden: int = 0

    @property
    def best_share(self) -> float | None:
        return self.best / self.decisions if self.decisions else None

    @property
    def evidence(self) -> float:
        return choice_evidence(self.table)


def game_signals(decisions: Sequence[Decision], hidden: int = 0) -> GameSignals:
    informative = [d for d in decisions if d.informative]
    return GameSignals(
        decisions=len(informative),
        best=sum(d.best for d in informative),
        loss=sum(max(0.0, d.values[0] - d.chosen_value) for d in informative),
        table=likelihood_table(informative),
        times=time_stats(informative),
        hidden=hidden,
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

    @property
    def evidence(self) -> float:
        return self.choice + self.time + self.hidden


def verdict(games: Sequence[GameSignals]) -> Verdict:
    """The account's evidence over its assessed games and whether it crosses the line: the whole
    evidence reaches FLAG_EVIDENCE, the choices alone reach it less the weak signals' caps, and at least
    MIN_SUSPICIOUS_GAMES games (and MIN_SUSPICIOUS_SHARE of them) are suspicious on their own."""
    table = empty_table()
    times = TimeStats()
    hidden = 0
    suspicious = 0
    for g in games:
        table = table + g.table
        times = times.merge(g.times)
        hidden += g.hidden
        suspicious += g.evidence >= GAME_EVIDENCE
    choice = choice_evidence(table)
    t, f = fitted(table)
    v = Verdict(
        games=len(games),
        suspicious_games=suspicious,
        choice=choice,
        time=time_evidence(times),
        hidden=hidden_evidence(hidden),
        temperature=t,
        share=f,
        flagged=False,
    )
    v.flagged = (
        v.evidence >= FLAG_EVIDENCE
        and choice >= FLAG_EVIDENCE - TIME_CAP - HIDDEN_CAP
        and suspicious >= MIN_SUSPICIOUS_GAMES
        and suspicious >= MIN_SUSPICIOUS_SHARE * len(games)
    )
    return v
