"""Two identical requests at the same moment apply once (real threads, real transactions).

Runs on whichever database the suite runs on: SQLite (IMMEDIATE transactions) by default, PostgreSQL
(row locks) in CI's second pass."""

import threading
import time

import pytest
from django.db import connection, transaction
from django.test import Client

from dicegame import play
from dicegame.errors import GameActionError
from dicegame.models import Turn
from tests.support.factories import PASSWORD
from tests.support.games import race

pytestmark = pytest.mark.django_db(transaction=True)


def test_simultaneous_identical_rolls_apply_exactly_once(user_actor):
    game = play.game_create_solo(actor=user_actor)
    results = race(4, lambda: play.turn_roll(game_id=game.pk, actor=user_actor, turn=1, roll=0))
    refused = [r for r in results if isinstance(r, GameActionError)]
    assert len(refused) == 3, results
    assert all(r.status == 409 for r in refused)
    turn = Turn.objects.get(game=game, number=1)
    assert turn.rolls_used == 1
    game.refresh_from_db()
    assert game.version == 1


def test_simultaneous_confirms_score_once(user_actor):
    game = play.game_create_solo(actor=user_actor)
    play.turn_roll(game_id=game.pk, actor=user_actor, turn=1, roll=0)
    play.turn_choose_box(game_id=game.pk, actor=user_actor, turn=1, roll=1, box="CHANCE")
    results = race(3, lambda: play.turn_confirm(game_id=game.pk, actor=user_actor, turn=1, roll=1))
    assert sum(isinstance(r, GameActionError) for r in results) == 2, results
    assert Turn.objects.filter(game=game).count() == 2
    assert list(game.players.get().boxes) == ["CHANCE"]


def test_simultaneous_http_rolls_apply_once(user, user_actor):

    game = play.game_create_solo(actor=user_actor)
    clients = []
    for _ in range(2):
        c = Client()
        assert c.login(username=user.username, password=PASSWORD)
        clients.append(c)
    it = iter(clients)
    lock = threading.Lock()

    def post():
        with lock:
            c = next(it)
        return c.post(f"/games/{game.pk}/roll/", {"turn": 1, "roll": 0}, HTTP_HX_REQUEST="true").status_code

    assert sorted(race(2, post)) == [200, 409]
    assert Turn.objects.get(game=game, number=1).rolls_used == 1


def test_an_action_that_waited_for_the_lock_acts_on_what_the_other_committed(user_actor):
    """A hold sent while a roll still holds the game's lock waits for it, then sees the rolled dice.
    On PostgreSQL the hold's first statement reads the turn in a snapshot taken before it waited, and
    must notice that the game changed meanwhile and read the turn again (else: "the game has moved on",
    409, for a hold of dice the player had just seen rolled)."""
    game = play.game_create_solo(actor=user_actor)
    holding, done = threading.Event(), threading.Event()

    def roll_and_hold_the_lock():
        try:
            with transaction.atomic():
                play.turn_roll(game_id=game.pk, actor=user_actor, turn=1, roll=0)
                holding.set()
                done.wait(0.5)  # the hold below starts meanwhile and waits for this commit
        finally:
            connection.close()

    roller = threading.Thread(target=roll_and_hold_the_lock)
    roller.start()
    try:
        assert holding.wait(10)
        started = time.monotonic()
        play.turn_toggle_hold(game_id=game.pk, actor=user_actor, turn=1, roll=1, die=1)
        waited = time.monotonic() - started
    finally:
        done.set()
        roller.join(10)
    assert waited > 0.2  # it did wait for the roll's lock
    turn = Turn.objects.get(game=game, number=1)
    assert turn.rolls_used == 1 and turn.held == [True, False, False, False, False]
    game.refresh_from_db()
    assert game.version == 2
