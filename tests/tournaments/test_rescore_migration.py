"""The data migration that writes the final tables already there again by issue 38's rules: the idle
entrants placed by the old rule lose their place (and the "of N" they swelled), a withdrawn player
gets one, and the players' cached pages are told."""

from __future__ import annotations

import datetime as dt
import importlib

import pytest
from django.apps import apps

from core import versions
from dicegame.play import sweeper as game_clock
from tests.support.clock import Clock
from tests.support.factories import UserFactory
from tests.support.tournaments import made_up_round_game, round_of, tournament_of
from tournaments import lists
from tournaments.models import Entry

pytestmark = pytest.mark.django_db

START = dt.datetime(2026, 6, 10, 10, 0, tzinfo=dt.UTC)
rescore = importlib.import_module("tournaments.migrations.0002_rescore_finished_tables").rescore


def test_the_tables_written_by_the_old_rules_are_written_again(monkeypatch):
    clock = Clock(monkeypatch, START)
    users = [UserFactory(username=n) for n in ("ann", "ben", "cas", "dora", "eve", "idle")]
    ann, ben, cas, dora, eve, idle = users
    t = tournament_of(*users, rounds=2)
    for n, totals in (
        (1, {ann: 200, ben: 150, cas: 100, dora: 50, eve: 120}),
        (2, {ann: 180, ben: 190, cas: 90, eve: 60}),
    ):
        for user, total in totals.items():
            made_up_round_game(Entry.objects.get(tournament=t, user=user), round_of(t, n), total)
        clock.set(round_of(t, n).closes_at)
        game_clock.sweep(force=True)
    t.refresh_from_db()
    assert t.finished_at is not None
    good = {e.user.username: (e.place, e.score) for e in Entry.objects.filter(tournament=t)}
    # The table as the old rules wrote it: the idle entrant placed last, Dora (withdrawn) unplaced.
    Entry.objects.filter(tournament=t, user=idle).update(place=6, score=0.0)
    Entry.objects.filter(tournament=t, user=dora).update(place=None, score=None, withdrawn_at=START)
    Entry.objects.filter(tournament=t, user=ann).update(score=150.0)
    before = versions.read([versions.user(ann.pk)])[versions.user(ann.pk)]

    rescore(apps, None)

    after = {e.user.username: (e.place, e.score) for e in Entry.objects.filter(tournament=t)}
    assert after == good
    assert after["idle"] == (None, None) and after["dora"][0] == 5
    assert lists.player_results(ann.pk).best.of == 5
    assert versions.read([versions.user(ann.pk)])[versions.user(ann.pk)] != before
    rescore(apps, None)  # again: nothing to change
    assert {e.user.username: (e.place, e.score) for e in Entry.objects.filter(tournament=t)} == good
