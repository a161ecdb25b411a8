"""Dice that nobody can doubt: every die is derived from a secret per-game seed.

When a game starts the server draws a 32-byte seed and publishes its SHA-256 commitment. Each die is
HMAC-SHA256(key=seed, message="penta/v1/{game}/{turn}/{roll}/{die}/{attempt}"), read byte by byte:
the first byte below 252 (= 6 * 42) gives the face `byte % 6 + 1`, so every face has probability
exactly 1/6; bytes 252-255 are skipped (and, in the astronomically rare case that all 32 are, the
attempt counter moves on). `{game}` is the game's id, except in a daily challenge, where every player
shares the day's seed and `{game}` is the day's ISO date ("2026-11-30"), so everyone gets the same face at
the same slot. When the game ends the seed is revealed (a daily seed when its day ends), and anyone can
recompute the commitment and every die with nothing but the standard library. Pure Python, no Django.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

SEED_BYTES = 32
_ACCEPT_BELOW = 252  # the largest multiple of 6 that fits in a byte


def new_seed() -> str:
    """A fresh secret seed, as 64 hex digits."""
    return secrets.token_hex(SEED_BYTES)


def commitment(seed: str) -> str:
    """The SHA-256 of the seed's bytes, as hex: published before the first roll."""
    return hashlib.sha256(bytes.fromhex(seed)).hexdigest()


def die_value(seed: str, game: int | str, turn: int, roll: int, die: int) -> int:
    """The face of die `die` (1-5) on roll `roll` (1-3) of turn `turn` (1-based, counted over the
    whole game) of game `game` (its id, or a daily challenge's ISO date)."""
    key = bytes.fromhex(seed)
    attempt = 0
    while True:
        message = f"penta/v1/{game}/{turn}/{roll}/{die}/{attempt}".encode()
        for byte in hmac.new(key, message, hashlib.sha256).digest():
            if byte < _ACCEPT_BELOW:
                return byte % 6 + 1
        attempt += 1


def roll_dice(
    seed: str, game: int | str, turn: int, roll: int, previous: tuple[int, ...] | None, held: tuple[bool, ...]
) -> tuple[int, ...]:
    """The five dice after roll `roll`: held dice keep their face, the others take their derived face."""
    return tuple(
        previous[i] if previous is not None and held[i] else die_value(seed, game, turn, roll, i + 1)
        for i in range(5)
    )


def check_turn(seed: str, game: int | str, turn: int, rolls: list[dict]) -> list[str]:
    """Recompute a logged turn's rolls; returns what disagrees (nothing for an honest log).

    `rolls` is the turn log: [{"dice": [five faces], "held": [five booleans]}, ...]."""
    problems = []
    previous = None
    for number, roll in enumerate(rolls, start=1):
        held = tuple(bool(h) for h in roll["held"])
        if previous is None and any(held):
            problems.append(f"turn {turn}, roll 1: dice held before the first roll")
        expected = roll_dice(seed, game, turn, number, previous, held)
        if tuple(roll["dice"]) != expected:
            logged = list(roll["dice"])
            problems.append(f"turn {turn}, roll {number}: logged {logged}, derived {list(expected)}")
        previous = tuple(roll["dice"])
    return problems
