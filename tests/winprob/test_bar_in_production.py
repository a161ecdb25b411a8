"""The winning chances bar on the production set-up (two daphne processes and run_timers, PostgreSQL and
Redis): after every written box, the player's screen (the bar switched on) and a spectator's screen on
the other process show a bar of that position or a later one (issue 22, item 5: the bar stayed on the
same figures for four written boxes on both). Run where REDIS_URL is set (skipped otherwise)."""

from __future__ import annotations

import asyncio
import re

import pytest

from dicegame.models import Game, Player, Turn
from dicegame.play import rooms
from tests.support.daphne_servers import (
    Screen,
    box_for,
    daphne_servers_fixture,  # noqa: F401  (the fixture `daphne_servers`)
    game_path,
    in_db,
    no_tracebacks,
)
from tests.support.factories import UserFactory, actor, session_cookie
from winprob import chances as wp

pytestmark = pytest.mark.django_db(transaction=True)

BAR = re.compile(r'id="win-bar"[^>]*data-win-version="(\d+)".*?</section>', re.S)


def newest_bar(screen: Screen) -> int:
    versions = [int(m.group(1)) for _at, frame in screen.frames for m in BAR.finditer(frame)]
    return max(versions, default=-1)


def game_against_the_computer(host) -> Game:
    """A room of the host and a hard computer player, started; the host switched the bar on."""
    game = rooms.room_create(actor=actor(host), seats=2, turn_seconds=0)
    rooms.room_add_computer(game_id=game.pk, actor=actor(host), strength="hard")
    game = rooms.room_start(game_id=game.pk, actor=actor(host))
    wp.switch_bar(Player.objects.get(game=game, user=host), on=True)
    return game


def test_the_bar_follows_every_written_box_on_a_players_and_a_spectators_screen(daphne_servers):
    web1, web2 = daphne_servers.daphne(2, clock="process", PENTA_BOT_STEP_SECONDS="0.3")
    hana = UserFactory(username="hana")
    game = game_against_the_computer(hana)
    cookie = session_cookie(hana)

    async def scenario():
        player = await Screen.open(web1, game_path(game), cookie, name="hana's screen")
        watcher = await Screen.open(web2, game_path(game, game.invite_token), name="a spectator")
        try:
            await player.until(lambda: player.turn == 1, 15, "hana's first board")
            for written in range(1, 5):  # hana's box, the computer's, hana's, the computer's
                turn = await in_db(Turn.objects.select_related("player").get, game=game, number=written)
                if not turn.player.is_bot:
                    await player.send({"action": "roll", "turn": written, "roll": 0})
                    await player.until(
                        lambda w=written: player.roll == 1 and player.turn == w, 15, "the roll"
                    )
                    box = await in_db(box_for, game.pk, written)
                    # A zero is asked about first (as on the page): this player has said yes already.
                    choice = {"action": "choose", "turn": written, "roll": 1, "box": box, "confirm_zero": 1}
                    await player.send(choice)
                    await player.send({"action": "confirm", "turn": written, "roll": 1})

                def done(number=written):
                    return Turn.objects.filter(game=game, number=number, completed_at__isnull=False).exists()

                for _ in range(600):
                    if await in_db(done):
                        break
                    await asyncio.sleep(0.05)
                version = (await in_db(Game.objects.get, pk=game.pk)).version
                for screen in (player, watcher):
                    await screen.until(
                        lambda s=screen, v=version: newest_bar(s) >= v,
                        60,
                        f"a bar of the position after written box {written} (version {version})",
                    )
            assert not player.errors and not watcher.errors
        finally:
            await player.close()
            await watcher.close()

    asyncio.run(scenario())
    for server in daphne_servers.started:
        no_tracebacks(server)
