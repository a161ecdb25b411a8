"""The computer that plays to win (`Bot("winner")`, `winner.WinPlay`): where the answer is known it
differs from the expected-total play as it should; without its tables or opponents it plays as hard
does; every strength takes the opponents' sheets."""

from __future__ import annotations

import numpy as np
import pytest

from dicegame.rules.scoring import Box, Scoresheet
from dicegame.strategy import STRENGTHS, Bot, outcomes, win_tables
from dicegame.strategy import winner as W
from dicegame.strategy.computer import next_step

UPPER_63 = {b: 3 * b.face for b in Box if b.is_upper}  # 63: the upper bonus earned


def sheet(**boxes: int) -> Scoresheet:
    """Every upper box at three of its face (63, so 98 with the bonus), the named lower boxes as given,
    the other lower boxes written with 0, except those given as None (open)."""
    out = dict(UPPER_63)
    for box in Box:
        if not box.is_upper:
            points = boxes.get(box.name.lower(), 0)
            if points is not None:
                out[box] = points
    return Scoresheet(out)


@pytest.fixture(scope="module")
def tables():
    return win_tables.shared()  # the session's small tables (tests/support/strategy.py)


@pytest.fixture(scope="module")
def winner(strategy, tables):
    return Bot("winner", strategy, tables)


def test_behind_by_60_with_one_box_left_after_this_one_it_takes_the_risky_box(strategy, winner):
    """Chance and Penta open, 1-1-2-3-5 to write, the opponent finished 60 ahead. For the total, the
    0 goes in Penta and Chance stays open (23.3 points to come); to win, 12 goes in Chance and the
    Penta box stays open: a Penta (50) is the only way past 60."""
    me = sheet(chance=None, penta=None)
    them = sheet(three_of_a_kind=30, chance=30, penta=0)
    assert them.total - me.total == 60
    dice = (1, 1, 2, 3, 5)
    assert Bot("hard", strategy).choose_box(me, dice) is Box.PENTA
    assert winner.choose_box(me, dice, opponents=[them]) is Box.CHANCE
    options = winner.win_play.box_options(me, dice, W.against(winner.win_play.outcomes, [them]))
    assert options[0].box is Box.CHANCE and options[0].chance == pytest.approx(
        0.046, abs=0.001
    )  # a Penta in one turn
    assert options[1].chance == 0.0


def test_on_the_last_roll_behind_by_30_it_rerolls_for_the_only_tie_there_is(strategy, winner):
    """Only Chance open, one roll left, 6-6-6-6-5 (29) and the opponent 30 ahead: holding all five
    loses for sure; rolling the 5 again ties on a 6 (a tie is shared: 1/12)."""
    me = sheet(chance=None)
    them = sheet(chance=30)
    assert them.total - me.total == 30
    dice = (6, 6, 6, 6, 5)
    assert sorted(Bot("hard", strategy).choose_keep(me, dice, 1)) == [5, 6, 6, 6, 6]
    assert winner.choose_keep(me, dice, 1, opponents=[them]) == (6, 6, 6, 6)
    aim = W.against(winner.win_play.outcomes, [them])
    best = winner.win_play.keep_options(me, dice, 1, aim)[0]
    assert best.chance == pytest.approx(1 / 12, abs=1e-9)


def test_against_three_opponents_it_weighs_them_all(strategy, winner):
    """Three finished opponents, the best of them 60 ahead: the same answer as against that one alone."""
    me = sheet(chance=None, penta=None)
    lead = sheet(three_of_a_kind=30, chance=30, penta=0)
    others = [sheet(chance=5, penta=0), sheet(chance=20, penta=0)]
    dice = (1, 1, 2, 3, 5)
    assert winner.choose_box(me, dice, opponents=[others[0], lead, others[1]]) is Box.CHANCE
    aim = W.against(winner.win_play.outcomes, [others[1], lead, others[0]])
    assert aim.key == W.against(winner.win_play.outcomes, [lead, *others]).key  # the order does not matter
    assert winner.win_play.box_options(me, dice, aim)[0].chance == pytest.approx(0.046, abs=0.001)


def test_without_tables_or_opponents_it_plays_for_the_total(strategy):
    me = sheet(chance=None, penta=None)
    them = sheet(three_of_a_kind=30, chance=30, penta=0)
    dice = (1, 1, 2, 3, 5)
    assert Bot("winner", strategy, None).choose_box(me, dice, opponents=[them]) is Box.PENTA
    small = outcomes.build(strategy.values, min_layer=12)
    assert Bot("winner", strategy, small).choose_box(me, dice) is Box.PENTA  # nobody to beat
    # Early in a game the small tables know nothing: the expected-total play decides.
    early = Scoresheet({Box.ONES: 3})
    hard = Bot("hard", strategy)
    for dice in [(1, 1, 1, 5, 6), (2, 3, 4, 5, 5), (6, 6, 6, 6, 2)]:
        got = Bot("winner", strategy, small).choose_keep(early, dice, 2, opponents=[Scoresheet()])
        assert got == hard.choose_keep(early, dice, 2)


def test_every_strength_takes_the_opponents_sheets(strategy):
    me = sheet(chance=None, penta=None)
    for strength in STRENGTHS:
        bot = Bot(strength, strategy, None)
        assert bot.choose_box(me, (1, 1, 2, 3, 5), opponents=[Scoresheet()]) in me.open_boxes
        assert len(bot.choose_keep(me, (1, 1, 2, 3, 5), 2, opponents=[Scoresheet(), Scoresheet()])) <= 5
    step = next_step(Bot("winner", strategy, None), me, (1, 1, 2, 3, 5), [False] * 5, 3, None, [Scoresheet()])
    assert step.kind == "choose" and step.box is Box.PENTA


def test_the_chance_of_finishing_first_shares_ties_and_sums_to_one_over_seats():
    a = np.zeros(W.TOTALS)
    a[[100, 120]] = 0.5
    b = np.zeros(W.TOTALS)
    b[[100, 110]] = 0.5
    worth = W.first_place_worth([a, b])
    # Against a and b: 100 ties both half the time each (a third, a half, or alone...), 121 beats both.
    assert worth[121] == pytest.approx(1.0)
    assert worth[99] == 0.0
    assert worth[100] == pytest.approx(0.25 * (1 / 3))
    # A seat's chances, by symmetry of the formula, sum to one over three seats with these laws.
    me = np.zeros(W.TOTALS)
    me[[100, 115]] = 0.5
    total = (
        me @ W.first_place_worth([a, b]) + a @ W.first_place_worth([me, b]) + b @ W.first_place_worth([me, a])
    )
    assert total == pytest.approx(1.0)


def test_the_field_aim_is_the_share_of_the_field_beaten():
    field = np.zeros(300)
    field[[200, 250]] = [0.75, 0.25]
    aim = W.against_field(field, "test")
    assert aim.at(199) == 0.0
    assert aim.at(200) == pytest.approx(0.375)
    assert aim.at(220) == pytest.approx(0.75)
    assert aim.at(251) == pytest.approx(1.0)


def test_the_session_uses_small_tables_that_judge_only_the_last_boxes():
    shared = win_tables.shared()
    assert shared is not None and shared.min_layer == 11
