"""Glicko-2 (Mark E. Glickman, "Example of the Glicko-2 system", 2013), steps 1-8. Pure Python, no Django.

One call of `rate` is one rating period for one player: every result is scored against the opponent's
rating as it stood before the period, so the order of the games inside a period does not matter.

A result may carry a weight between 0 and 1 (the weighted Glicko form): it scales that result's terms in
the estimated variance's inverse and in the improvement sum, as if the game had been a fraction of a
game. The ratings use it to count results that say little about strength (the same two accounts again
and again, a brand-new account) for less; a weight of 1 is Glickman's system exactly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

# The Glicko-2 scale: ratings are stored on the Glicko scale (1500 +/- 173.7178 per unit).
SCALE = 173.7178
BASE = 1500.0
# Convergence tolerance of the volatility iteration (step 5), as in the paper.
EPSILON = 1e-6
# A result weighing less than this counts as no result: its variance (1 / weight) would overflow step 5's
# arithmetic long before 1e-150, and it could not move a rating by a billionth of a point anyway.
MIN_WEIGHT = 1e-12


@dataclass(frozen=True)
class Rating:
    rating: float = 1500.0
    rd: float = 350.0
    volatility: float = 0.06


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, g_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-g_j * (mu - mu_j)))


def _new_volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """Step 5: the Illinois algorithm (a regula falsi that halves the stale end) on f(x) = 0."""
    a = math.log(sigma * sigma)
    phi2 = phi * phi
    delta2 = delta * delta

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta2 - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta2 > phi2 + v:
        big_b = math.log(delta2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def idle(player: Rating, periods: int) -> Rating:
    """`periods` rating periods without a game: step 6 alone, each time (the deviation grows, the rating
    and volatility stay), never past a newcomer's deviation (Glickman: an RD is at most 350)."""
    if periods <= 0:
        return player
    phi = player.rd / SCALE
    grown = math.sqrt(phi * phi + periods * player.volatility * player.volatility) * SCALE
    return Rating(player.rating, min(grown, Rating.rd), player.volatility)


Result = tuple[Rating, float] | tuple[Rating, float, float]


def rate(player: Rating, results: Sequence[Result], *, tau: float = 0.5) -> Rating:
    """One rating period: `results` are (opponent's rating before the period, score 1 / 0.5 / 0) or
    (opponent, score, weight) with 0 <= weight <= 1 (1 when left out)."""
    # Step 2: to the Glicko-2 scale.
    mu = (player.rating - BASE) / SCALE
    phi = player.rd / SCALE
    sigma = player.volatility
    # Steps 3 and 4: the estimated variance v and the estimated improvement delta.
    inverse_v = 0.0
    improvement = 0.0
    counted = False
    for result in results:
        opponent, score = result[0], result[1]
        weight = result[2] if len(result) > 2 else 1.0
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"a result's weight is between 0 and 1, not {weight}")
        if weight < MIN_WEIGHT:
            continue
        counted = True
        mu_j = (opponent.rating - BASE) / SCALE
        g_j = _g(opponent.rd / SCALE)
        e_j = _expected(mu, mu_j, g_j)
        inverse_v += weight * g_j * g_j * e_j * (1.0 - e_j)
        improvement += weight * g_j * (score - e_j)
    if not counted:
        # An empty period (or one whose every result weighs nothing) only lets the deviation grow
        # (step 6 with the volatility unchanged).
        return Rating(player.rating, math.sqrt(phi * phi + sigma * sigma) * SCALE, sigma)
    v = 1.0 / inverse_v
    delta = v * improvement
    # Step 5: the new volatility.
    sigma_new = _new_volatility(phi, sigma, delta, v, tau)
    # Steps 6 and 7: the pre-period deviation, then the new deviation and rating.
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * improvement
    # Step 8: back to the Glicko scale.
    return Rating(mu_new * SCALE + BASE, phi_new * SCALE, sigma_new)
