"""Games for a test: played through play's own actions (`roll`, `place`, `play_turn`, `play_whole_game`),
rigged to show given dice (`rigged_turn`), made whole from the bots' games on the server's dice
(`make_game`), a started game against a friend, a snapshot of everything an action could change, and a
race of threads."""

from __future__ import annotations

import threading

from django.db import connection
from django.utils import timezone

from dicegame import play
from dicegame.models import Game, Player, Turn
from dicegame.play import rooms
from dicegame.rules.scoring import Box, Scoresheet
from dicegame.strategy import analysis as A
from dicegame.strategy import computer
from dicegame.strategy.bot_games import bot_game
from tests.support.factories import (
    GameFactory,
    PlayerFactory,
    TurnFactory,
    UserFactory,
    actor,
    befriend,
)


def bot_game_logs(strengths: list[str], seed: str, game: int = 1) -> list[A.TurnLog]:
    """A whole game of bots taking turns with the server's dice recipe, as the turn log the app stores."""
    return bot_game(strengths, seed, game).logs


def snapshot(game_id: int) -> tuple:
    """Everything an action could change, to show that a refused one changed nothing."""
    game = Game.objects.get(pk=game_id)
    players = list(Player.objects.filter(game_id=game_id).order_by("seat").values())
    turns = list(Turn.objects.filter(game_id=game_id).order_by("number").values())
    return (game.version, game.status, players, turns)


def current(game_id: int) -> Turn:
    return Turn.objects.filter(game_id=game_id, completed_at__isnull=True).select_related("player").get()


def roll(game, actor, times=1):
    for _ in range(times):
        t = current(game.pk)
        play.turn_roll(game_id=game.pk, actor=actor, turn=t.number, roll=t.rolls_used)
    return current(game.pk)


def place(game, actor, box: Box):
    t = current(game.pk)
    play.turn_choose_box(game_id=game.pk, actor=actor, turn=t.number, roll=t.rolls_used, box=box.name)
    play.turn_confirm(game_id=game.pk, actor=actor, turn=t.number, roll=t.rolls_used)


def play_turn(game, user, box: Box | None = None) -> None:
    """The user's turn: one roll, written in `box` (the first box still open when not given)."""
    turn = roll(game, actor(user))
    place(game, actor(user), box or next(b for b in Box if b not in turn.player.sheet.boxes))


def rigged_turn(actor_user, dice_values, boxes=None, penta_bonus=0, rolls=1):
    """A solo game whose current turn shows the given dice (as if rolled `rolls` times)."""
    player = PlayerFactory(
        user=actor_user, boxes={b.name: p for b, p in (boxes or {}).items()}, penta_bonus=penta_bonus
    )
    log = [{"dice": list(dice_values), "held": [False] * 5}] * rolls
    TurnFactory(
        player=player,
        number=len(boxes or {}) + 1,
        round=len(boxes or {}) + 1,
        dice=list(dice_values),
        rolls=log,
    )
    return player.game


def play_whole_game(game, actor):
    for _ in range(13):
        t = roll(game, actor)
        sheet = t.player.sheet
        place(game, actor, computer.auto_commit_box(sheet, tuple(t.dice)))


def logged_turn(game: Game, player: Player, log: A.TurnLog, **fields) -> Turn:
    """The turn of a bot game's log (`bot_game_logs`) as a row of `game` for `player`, written and not yet
    saved (the callers make many at once); `fields`: completed_at, stand_in, ..."""
    return Turn(
        game=game,
        player=player,
        number=log.number,
        round=log.round,
        dice=log.rolls[-1]["dice"],
        held=log.rolls[-1]["held"],
        rolls=log.rolls,
        box=log.box,
        chosen_box=log.box,
        points=log.points,
        bonus=log.bonus,
        **fields,
    )


def make_game(
    seats: list,
    *,
    kind: str = Game.Kind.COMPUTER,
    strengths: list[str] | None = None,
    finished: bool = True,
    flags: dict[int, dict] | None = None,
) -> Game:
    """A game whose seats (a user, or a bot strength string) played a whole game with the server's dice;
    the people's seats are played by bots of `strengths` (default: medium). `flags`: turn number ->
    {"auto_committed": True} or {"stand_in": True}."""
    game = GameFactory(kind=kind, status=Game.Status.FINISHED if finished else Game.Status.ACTIVE)
    strengths = strengths or [s if isinstance(s, str) else "medium" for s in seats]
    logs = bot_game_logs(strengths, game.seed, game.pk)
    players = []
    for seat, who in enumerate(seats):
        if isinstance(who, str):
            players.append(
                Player.objects.create(game=game, seat=seat, bot_strength=who, name=f"Computer {seat}")
            )
        else:
            players.append(PlayerFactory(game=game, seat=seat, user=who))
    sheets = [Scoresheet() for _ in seats]
    for log in logs:
        if not finished and log.round > 3:
            break
        sheets[log.seat] = sheets[log.seat].place(Box[log.box], tuple(log.rolls[-1]["dice"]))
        logged_turn(
            game, players[log.seat], log, completed_at=timezone.now(), **(flags or {}).get(log.number, {})
        ).save()
    for p, sheet in zip(players, sheets, strict=True):
        p.store_sheet(sheet)
    for p in players:
        p.rank = 1 + sum(1 for o in players if o.total > p.total) if finished else None
        p.save()
    if finished:
        game.finished_at = timezone.now()
        game.save()
    return game


def race(n: int, action) -> list:
    """Run `action` in n threads released together; returns each thread's result or exception."""
    barrier = threading.Barrier(n)
    results: list = [None] * n

    def run(i):
        try:
            barrier.wait()
            results[i] = action()
        except Exception as exc:
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def started_two_player_game(host, friend, turn_seconds=60, move_seconds=0):
    """A started game of host (to move) and friend; with `move_seconds`, by correspondence."""
    game = rooms.room_create(actor=actor(host), seats=2, turn_seconds=turn_seconds, move_seconds=move_seconds)
    rooms.room_invite(game_id=game.pk, actor=actor(host), username=friend.username)
    rooms.room_accept_invitation(game_id=game.pk, actor=actor(friend))
    rooms.room_start(game_id=game.pk, actor=actor(host))
    game.refresh_from_db()
    return game


def open_turn(game: Game) -> Turn | None:
    return Turn.objects.filter(game=game, completed_at__isnull=True).select_related("player").first()


def mark_finished(game: Game) -> None:
    """The game as finished in the database, its play skipped (for what a finished game shows)."""
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, finished_at=timezone.now())
    game.refresh_from_db()


def two_player_game(
    *, turn_seconds: int | None = None, rated: bool = False, names: tuple[str, str] = ("hana", "femke")
) -> tuple[Game, object, object]:
    """A started game of two friends, hana (the host, to move) and femke unless `names` says otherwise:
    (game, host, friend). The turn timer is off unless given; a rated game's is 60 s (a rated game always
    has a clock)."""
    if turn_seconds is None:
        turn_seconds = 60 if rated else 0
    host, friend = UserFactory(username=names[0]), UserFactory(username=names[1])
    befriend(host, friend)
    game = rooms.room_create(actor=actor(host), seats=2, turn_seconds=turn_seconds, rated=rated)
    rooms.room_join_by_link(token=game.invite_token, actor=actor(friend))
    rooms.room_start(game_id=game.pk, actor=actor(host))
    game.refresh_from_db()
    return game, host, friend
