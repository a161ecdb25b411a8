"""The library of simulated people the fair-play line is calibrated and checked on
(`bench/fairplay.py`, the tests). Pure.

- CALIBRATION: the honest kinds the model's constants were chosen on (ALLOWANCE, PRIOR, the line).
- HELD_OUT: honest kinds written after the constants were fixed and never used to choose them: that they
  stay unflagged too is the check that the honest side is wide, not tuned to the kinds it was set on.
- ASSISTED: people using the solver: on every decision, on half of them, and on the holds only with the
  box after the last roll left to the auto-commit (issue 44's loophole).

Every kind plays as the server lets people play (`fairplay.simulate`): the auto-commit after a slow last
box, the computer for a person away when the turn's time runs out.
"""

from __future__ import annotations

from fairplay.players import Biased, Boltzmann, Calculator, Guide, Judge, Mixed, Noisy, Thoughtful
from fairplay.simulate import Computer, HumanPace, Player

STEADY = HumanPace(spread=0.15)

CALIBRATION = (
    Player(Boltzmann(0.5), name="Boltzmann T=0.5 (at the solver's level)"),
    Player(Boltzmann(1.0), name="Boltzmann T=1"),
    Player(Boltzmann(2.0), name="Boltzmann T=2"),
    Player(Boltzmann(4.0), name="Boltzmann T=4"),
    Player(Noisy(0.75), name="optimal, misjudging by 0.75 (at the solver's level)"),
    Player(Noisy(1.5), name="optimal, misjudging by 1.5"),
    Player(Computer("medium"), name="the medium computer, misjudging by 1"),
    Player(Computer("easy"), name="the easy computer, misjudging"),
    Player(Guide(), name="guide: the bonus first"),
    Player(Guide(patterns=True), name="guide: patterns first"),
    Player(Guide(slip=0.15), name="guide: the bonus first, 15% another choice"),
    Player(Guide(patterns=True, feel=0.15), name="guide: patterns first, 15% on feel"),
    Player(Calculator(), name="strong holds, weak boxes"),
    Player(Judge(), name="weak holds, strong boxes"),
    Player(Biased(Guide(), "penta"), name="guide, always chasing the Penta"),
    Player(Biased(Guide(patterns=True), "no-zero"), name="guide, never sacrificing"),
    Player(Biased(Boltzmann(0.75), "no-zero"), name="strong (T=0.75), never sacrificing"),
    Player(Biased(Boltzmann(0.75), "penta"), name="strong (T=0.75), always chasing the Penta"),
    Player(Thoughtful(Guide()), name="guide, thinking 30% through (club level)"),
    Player(Guide(), pace=STEADY, name="guide, steady times"),
    Player(Boltzmann(1.0), pace=STEADY, name="Boltzmann T=1, steady times"),
    Player(Guide(patterns=True), waits=True, name="guide, boxes left to the auto-commit"),
    Player(Guide(), away=0.1, name="guide, away on 10% of turns"),
)

HELD_OUT = (
    Player(
        Thoughtful(Guide(patterns=True), think=0.2, temperature=1.5),
        name="held out: patterns guide, thinking 20%",
    ),
    Player(
        Biased(Biased(Guide(patterns=True), "penta"), "no-zero"), name="held out: guide, Penta and no zero"
    ),
    Player(Mixed(Calculator(), Guide(patterns=True)), name="held out: calculator holds, guide boxes"),
    Player(Mixed(Guide(slip=0.1, feel=0.1), Judge(0.7)), name="held out: guide holds, strong boxes"),
    Player(Boltzmann(1.5, box_temperature=0.6), name="held out: T=1.5 on holds, 0.6 on boxes"),
    Player(Judge(), pace=STEADY, away=0.05, name="held out: weak holds, strong boxes, steady, away"),
    Player(Guide(slip=0.25, feel=0.1), waits=True, name="held out: sloppy guide, boxes to the auto-commit"),
)

HONEST = CALIBRATION + HELD_OUT

ASSISTED = (
    Player(Boltzmann(2.0), solver=1.0, name="solver on every decision"),
    Player(Boltzmann(2.0), solver=1.0, waits=True, name="solver's holds, boxes to the auto-commit"),
    Player(Boltzmann(2.0), solver=0.5, name="solver on half, else T=2"),
    Player(Guide(), solver=0.5, name="solver on half, else a guide"),
    Player(Boltzmann(0.75), solver=0.5, name="solver on half, else a strong T=0.75"),
    Player(Guide(patterns=True), solver=0.3, name="solver on 30%, else a guide"),
)
