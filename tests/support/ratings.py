"""Rated games for a test: a rated room of friends, played out turn by turn (some may play their worst)."""

from __future__ import annotations

from dicegame import play
from dicegame.models import Game
from dicegame.play import rooms
from dicegame.strategy.computer import auto_commit_box
from tests.support.factories import actor
from tests.support.games import open_turn


def rated_room(host, others, *, bots=(), rated=True, turn_seconds=None) -> Game:
    """A started room of the host, the others and the computer players `bots`; rated, with a turn timer
    of 60 s (a rated game always has a clock), unless told otherwise."""
    if turn_seconds is None:
        turn_seconds = 60 if rated else 0
    game = rooms.room_create(
        actor=actor(host), seats=1 + len(others) + len(bots), turn_seconds=turn_seconds, rated=rated
    )
    for user in others:
        rooms.room_join_by_link(token=game.invite_token, actor=actor(user))
    for strength in bots:
        rooms.room_add_computer(game_id=game.pk, actor=actor(host), strength=strength)
    rooms.room_start(game_id=game.pk, actor=actor(host))
    game.refresh_from_db()
    return game


def play_rated_turn(game: Game, user, *, worst: bool = False) -> None:
    """One person's turn: one roll, then the auto-commit's box (or the lowest-scoring box)."""
    t = open_turn(game)
    play.turn_roll(game_id=game.pk, actor=actor(user), turn=t.number, roll=0)
    t = open_turn(game)
    dice = tuple(t.dice)
    sheet = t.player.sheet
    options = sheet.options(dice)
    box = min(options, key=lambda b: options[b]) if worst else auto_commit_box(sheet, dice)
    play.turn_choose_box(game_id=game.pk, actor=actor(user), turn=t.number, roll=1, box=box.name)
    play.turn_confirm(game_id=game.pk, actor=actor(user), turn=t.number, roll=1)


def play_out(game: Game, users, *, worst=(), on_turn=None, until_last=False) -> Game:
    """Play the game to its end (the computer's turns through the clock's settlement). `on_turn(turn)`
    may act instead of the person (return True); `until_last` stops with only the last turn due."""
    by_id = {u.pk: u for u in users}
    for _ in range(400):
        play.game_settle(game_id=game.pk)
        game.refresh_from_db()
        if game.is_finished:
            return game
        t = open_turn(game)
        if until_last and t.round == 13 and t.player.seat == game.seats_wanted - 1:
            return game
        if on_turn is not None and on_turn(t):
            continue
        play_rated_turn(game, by_id[t.player.user_id], worst=t.player.user_id in {u.pk for u in worst})
    raise AssertionError("the game did not finish")
