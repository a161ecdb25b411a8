"""The provably fair dice: commitment, derivation without bias, and re-derivation of a log."""

import hashlib
import hmac
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from dicegame.rules import dice

SEED = "00" * 31 + "01"


def test_commitment_is_sha256_of_the_seed_bytes():
    seed = dice.new_seed()
    assert len(seed) == 64
    assert dice.commitment(seed) == hashlib.sha256(bytes.fromhex(seed)).hexdigest()


def test_new_seeds_differ():
    assert len({dice.new_seed() for _ in range(50)}) == 50


def test_die_value_follows_the_documented_recipe():
    # The README's recipe, written out independently: first HMAC byte below 252, mod 6, plus 1.
    digest = hmac.new(bytes.fromhex(SEED), b"penta/v1/7/3/2/4/0", hashlib.sha256).digest()
    expected = next(b % 6 + 1 for b in digest if b < 252)
    assert dice.die_value(SEED, 7, 3, 2, 4) == expected


@given(st.integers(1, 10**6), st.integers(1, 52), st.integers(1, 3), st.integers(1, 5))
def test_die_values_are_faces_and_deterministic(game, turn, roll, die):
    value = dice.die_value(SEED, game, turn, roll, die)
    assert 1 <= value <= 6
    assert value == dice.die_value(SEED, game, turn, roll, die)


def test_faces_are_uniform():
    counts = Counter(dice.die_value(SEED, g, t, 1, 1) for g in range(200) for t in range(1, 31))
    n = sum(counts.values())
    chi2 = sum((counts[f] - n / 6) ** 2 / (n / 6) for f in range(1, 7))
    assert set(counts) == set(range(1, 7))
    assert chi2 < 25  # 5 degrees of freedom: p < 0.0002 for a fair die


def test_held_dice_keep_their_faces():
    first = dice.roll_dice(SEED, 1, 1, 1, None, (False,) * 5)
    held = (True, False, True, False, False)
    second = dice.roll_dice(SEED, 1, 1, 2, first, held)
    assert second[0] == first[0] and second[2] == first[2]
    assert second[1] == dice.die_value(SEED, 1, 1, 2, 2)


def test_check_turn_accepts_an_honest_log_and_names_a_forged_roll():
    first = dice.roll_dice(SEED, 5, 2, 1, None, (False,) * 5)
    held = [True, True, False, False, False]
    second = dice.roll_dice(SEED, 5, 2, 2, first, tuple(held))
    log = [{"dice": list(first), "held": [False] * 5}, {"dice": list(second), "held": held}]
    assert dice.check_turn(SEED, 5, 2, log) == []
    forged = [log[0], {"dice": [6, 6, 6, 6, 6], "held": held}]
    problems = dice.check_turn(SEED, 5, 2, forged)
    assert problems and "roll 2" in problems[0]
