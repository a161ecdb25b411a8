"""What a player's figures are measured against: optimal play's average points per box, and the
computer players' accuracy (each strength's yardstick on the statistics page)."""

from __future__ import annotations

import math

from django.utils.translation import gettext as _

from dicegame.rules.scoring import Box
from dicegame.strategy import Bot
from dicegame.strategy.simulate import play_game, seed_from_number

# Average points per box under optimal play (the hard bot), and the standard error of each average:
# 20,000 solo games of `dicegame.strategy.simulate.play_game` with Bot("hard") and the dice seed
# simulate.seed_from_number(2026), games 0..19999 (see `optimal_box_averages` to recompute them). That
# run's mean total was 254.81 (upper bonus in 67.6% of games, 50 in the Penta box in 34.4%, Penta
# bonuses 10.0 points a game).
# Exact values would need the distribution over every sheet state, not just its expectation; a
# simulation this size pins each average to within about 0.1 point, far below what a player's own
# averages over their games can resolve.
OPTIMAL_BOX_GAMES = 20_000
OPTIMAL_BOX_AVERAGES: dict[str, tuple[float, float]] = {
    "ONES": (1.878, 0.009),
    "TWOS": (5.268, 0.014),
    "THREES": (8.541, 0.019),
    "FOURS": (12.14, 0.023),
    "FIVES": (15.664, 0.027),
    "SIXES": (19.195, 0.033),
    "THREE_OF_A_KIND": (21.697, 0.04),
    "FOUR_OF_A_KIND": (12.995, 0.078),
    "FULL_HOUSE": (22.536, 0.053),
    "SMALL_STRAIGHT": (29.469, 0.028),
    "LARGE_STRAIGHT": (32.536, 0.11),
    "CHANCE": (22.005, 0.018),
    "PENTA": (17.205, 0.168),
}

# The computer players' accuracy (analysis.accuracy): 300 solo games each on the dice seed
# simulate.seed_from_number(2026), games 0..299, each analysed (`bench/review_costs.py --calibrate 300`):
# median, lower and upper quartile, mean loss per turn. Shown on the statistics page as the yardstick.
BOT_ACCURACY: dict[str, tuple[float, float, float, float]] = {
    "hard": (100.0, 100.0, 100.0, 0.0),
    "medium": (85.7, 79.2, 90.2, 0.77),
    "easy": (38.5, 30.3, 46.4, 4.452),
}


def bot_accuracy() -> list[dict]:
    """The computer players' typical accuracy, for the statistics page."""
    labels = {"easy": _("easy"), "medium": _("medium"), "hard": _("hard")}  # as labels.bot_name says
    return [
        {
            "strength": k,
            "name": _("Computer (%(strength)s)") % {"strength": labels[k]},
            "median": m,
            "low": lo,
            "high": hi,
            "loss": loss,
        }
        for k, (m, lo, hi, loss) in BOT_ACCURACY.items()
    ]


def optimal_box_averages(
    games: int = OPTIMAL_BOX_GAMES, seed: str | None = None
) -> dict[str, tuple[float, float]]:
    """Recompute OPTIMAL_BOX_AVERAGES: box -> (average points, standard error) over `games` solo games
    of the hard bot (about 17 ms a game)."""

    seed = seed or seed_from_number(2026)
    bot = Bot("hard")
    sums = dict.fromkeys((b.name for b in Box), 0.0)
    squares = dict.fromkeys((b.name for b in Box), 0.0)
    for g in range(games):
        for box, points in play_game(bot, seed, g).boxes.items():
            sums[box.name] += points
            squares[box.name] += points * points
    out = {}
    for name, s in sums.items():
        mean = s / games
        sd = math.sqrt(max(0.0, squares[name] / games - mean * mean))
        out[name] = (round(mean, 3), round(sd / math.sqrt(games), 3))
    return out
