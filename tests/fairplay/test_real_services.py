"""The simulator against the real thing: simulated people play a rated game through play's actions, the
clock's auto-commit and turn timer, the stored analysis, `assess_game` and `judge`, and the evidence is
the bulk path's (`simulate.play_game` on the same dice)."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from dicegame.models import Turn
from fairplay import model as M
from fairplay import players as P
from fairplay import services, simulate
from fairplay.models import Case, GameSignals
from tests.support.clock import Clock
from tests.support.fairplay import play_people
from tests.support.games import two_player_game

pytestmark = pytest.mark.django_db

# The solver's holds, the box after the last roll left to the auto-commit (issue 44's loophole).
AUTO_COMMIT_USER = simulate.Player(P.Boltzmann(2.0), solver=1.0, waits=True)
# An honest guide player, away on some turns: with seed 7, turn 3, then 6 and 7 (the computer keeps the
# seat), 8 (still away: the computer plays it at its pace), back for 9 (takes the seat back), away on 11.
AWAY_SOMETIMES = simulate.Player(P.Guide(patterns=True), away=0.25)


def test_simulated_people_through_the_real_services_match_the_bulk_path(strategy, monkeypatch):
    clock = Clock(monkeypatch, dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC))
    game, host, friend = two_player_game(rated=True)
    seats = [(host, AUTO_COMMIT_USER, 2026), (friend, AWAY_SOMETIMES, 7)]
    play_people(game, [(u, p, np.random.default_rng(s)) for u, p, s in seats], strategy, clock)

    turns = Turn.objects.filter(game=game)
    # The server's rules happened: the auto-commit wrote the first person's boxes after a third roll,
    # and the computer played the second's turns while away.
    assert turns.filter(player__user=host, auto_committed=True).count() >= 5
    assert turns.filter(player__user=friend, stand_in=True).count() == 5

    services.assess_game(game.pk)
    for seat, (user, player, seed) in enumerate(seats):
        bulk = simulate.play_game(
            strategy,
            player,
            np.random.default_rng(seed),
            dice=simulate.seeded_dice(game.seed, game.dice_namespace),
            seat=seat,
            seats=2,
        )
        mine = turns.filter(player__user=user).order_by("number")
        assert [(t.box, t.auto_committed, t.stand_in) for t in mine] == [
            (t.box, t.auto_committed, t.stand_in) for t in bulk.turns
        ]
        assert [t.rolls for t in mine] == [list(t.rolls) for t in bulk.turns]
        expected = M.game_signals(bulk.decisions)
        stored = GameSignals.objects.get(game=game, user=user)
        assert (stored.decisions, stored.best, stored.timed) == (
            expected.decisions,
            expected.best,
            expected.times.n,
        )
        assert stored.evidence == pytest.approx(expected.evidence, abs=0.01)
        assert stored.time_log_sum == pytest.approx(expected.times.total, abs=0.01)
        case = services.judge(user.pk)
        verdict = M.verdict([expected])
        assert case.choice_evidence == pytest.approx(verdict.choice, abs=0.01)
        assert case.suspicious_games == verdict.suspicious_games

    # The auto-commit user's holds count: every informative one is the solver's, and the game is
    # suspicious on its own; the honest player's is not.
    solver = GameSignals.objects.get(game=game, user=host)
    assert solver.decisions >= 10 and solver.best == solver.decisions
    assert solver.evidence >= M.GAME_EVIDENCE
    assert GameSignals.objects.get(game=game, user=friend).evidence < M.GAME_EVIDENCE
    assert not Case.objects.exclude(status=Case.Status.OPEN).exists()  # one game flags nobody
