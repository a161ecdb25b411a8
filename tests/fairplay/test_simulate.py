"""The simulated people (`fairplay.simulate`, `fairplay.library`): they play as the server lets them (the
auto-commit after a slow last box, the computer for an absent person), their games read as the site
reads them, and short accounts of the two kinds issue 44 is about."""

from __future__ import annotations

import numpy as np
import pytest

from dicegame.rules.scoring import Box, Scoresheet
from dicegame.strategy import analysis as A
from dicegame.strategy.computer import auto_commit_box
from fairplay import library, positions, simulate
from fairplay import model as M
from fairplay import players as P


class Slow:
    """A pace at which every decision takes `fixed` seconds."""

    def __init__(self, fixed: float):
        self.fixed = fixed

    def seconds(self, rng, view, final_box):
        return self.fixed


def sheets(game: simulate.Game) -> list[Scoresheet]:
    """The sheet before each turn."""
    out, sheet = [], Scoresheet()
    for t in game.turns:
        out.append(sheet)
        sheet = sheet.place(Box[t.box], tuple(t.rolls[-1]["dice"]))
    return out


def test_a_box_chosen_after_three_seconds_is_the_auto_commits(strategy):
    player = simulate.Player(P.Guide(), pace=Slow(3.5))
    game = simulate.play_game(strategy, player, np.random.default_rng(1))
    for before, turn in zip(sheets(game), game.turns, strict=True):
        final = tuple(turn.rolls[-1]["dice"])
        assert turn.auto_committed == (len(turn.rolls) == 3)
        if turn.auto_committed:
            assert Box[turn.box] is auto_commit_box(before, final)
    # The holds of those turns count; their boxes do not.
    data = A.analyse_game(game.turns, [0], strategy)
    counted = [
        d["kind"] for t in data["turns"] if t["auto_committed"] for d in t["decisions"] if d["counted"]
    ]
    assert counted and set(counted) == {"keep"}
    assert len(game.decisions) == sum(d["counted"] for t in data["turns"] for d in t["decisions"])


def test_a_quick_box_is_the_persons_own(strategy):
    player = simulate.Player(P.Guide(), pace=Slow(2.0))
    game = simulate.play_game(strategy, player, np.random.default_rng(1))
    assert not any(t.auto_committed or t.stand_in for t in game.turns)
    # The box after the last roll 2 s after it; after a stop, the stop's and the box's thought (4 s).
    for t in game.turns:
        assert game.seconds[t.number][-1] == pytest.approx(2.0 if len(t.rolls) == 3 else 4.0, abs=1e-3)


def test_waiting_for_the_auto_commit_leaves_every_last_box_to_it(strategy):
    player = simulate.Player(P.Guide(), waits=True)
    game = simulate.play_game(strategy, player, np.random.default_rng(2))
    assert all(t.auto_committed == (len(t.rolls) == 3) for t in game.turns)


class AwayOn:
    """A generator of absences: away on the given rounds (1-based) only."""

    def __init__(self, rounds):
        self.rounds, self.round = set(rounds), 0

    def random(self):
        self.round += 1
        return 0.0 if self.round in self.rounds else 1.0


def play_away(strategy, rounds, turn_seconds=60.0) -> simulate.SimTable:
    player = simulate.Player(P.Guide(), away=0.5)
    rng = np.random.default_rng(4)
    table = simulate.SimTable(strategy, simulate.random_dice(np.random.default_rng(5)), turn_seconds)
    absences = AwayOn(rounds)
    for round_ in range(1, 14):
        kept = table.start(round_, round_)
        away = absences.random() < player.away
        simulate.play_turn(strategy, player, rng, table, table.sheet, round_, kept=kept, away=away)
    return table


def test_an_absent_persons_turns_are_the_computers_and_count_for_nothing(strategy):
    table = play_away(strategy, {3, 6, 7, 8})
    stand_in = {t.number for t in table.logs if t.stand_in}
    assert stand_in == {3, 6, 7, 8}
    # The first miss waits for the turn's 60 s; after two in a row the computer keeps the seat and plays
    # at its pace, until the person takes it back (turn 9 is theirs).
    clocks = table.clocks
    assert clocks[3].roll_times[0] == pytest.approx(clocks[3].completed_at, abs=1e-3) and not table.kept
    assert clocks[8].roll_times[0] < clocks[8].completed_at
    game = simulate.read_game(strategy, table.logs, table.clocks, table.sheet.total)
    data = A.analyse_game(table.logs, [0], strategy)
    assert not any(d["counted"] for t in data["turns"] if t["number"] in stand_in for d in t["decisions"])
    assert len(game.decisions) == len(positions.from_analysis(data, 0))


def test_a_game_with_no_turn_timer_waits_for_the_person(strategy):
    table = play_away(strategy, {3, 4}, turn_seconds=None)
    assert not any(t.stand_in for t in table.logs) and len(table.logs) == 13


def test_the_person_draws_the_same_whatever_deals_the_dice(strategy):
    # The same generator with other dice: the person's absences are the same turns.
    player = simulate.Player(P.Guide(), away=0.3)
    one = simulate.play_game(strategy, player, np.random.default_rng(9))
    other = simulate.play_game(
        strategy, player, np.random.default_rng(9), dice=simulate.seeded_dice("ab" * 32, 1)
    )
    assert [t.stand_in for t in one.turns] == [t.stand_in for t in other.turns]


def test_every_kind_of_the_library_plays_a_game(strategy):
    rng = np.random.default_rng(6)
    for player in (*library.HONEST, *library.ASSISTED):
        game = simulate.play_game(strategy, player, rng)
        assert len(game.turns) == 13 and 0 < game.total < 1600
        assert all(d.kind in M.KINDS for d in game.decisions)


def account(strategy, player, games: int, seed: int) -> list[M.Verdict]:
    rng = np.random.default_rng(seed)
    signals, verdicts, warm = [], [], None
    for _ in range(games):
        signals.append(M.game_signals(simulate.play_game(strategy, player, rng).decisions))
        verdicts.append(M.verdict(signals, warm))
        warm = verdicts[-1].fits
    return verdicts


def test_the_auto_commits_user_is_flagged_within_ten_games(strategy):
    auto = next(p for p in library.ASSISTED if p.waits)
    verdicts = account(strategy, auto, 10, seed=11)
    assert any(v.flagged for v in verdicts)


def test_a_guide_player_is_not_flagged_in_ten_games(strategy):
    verdicts = account(strategy, library.CALIBRATION[9], 10, seed=11)  # patterns first
    assert not any(v.flagged for v in verdicts)
    assert verdicts[-1].evidence < M.FLAG_EVIDENCE / 2
