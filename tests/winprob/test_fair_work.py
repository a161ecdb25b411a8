"""The winning chances of every game get their turn (issue 22, items 5 and 15): a person whose games
keep moving cannot hold back the bar of somebody else's game, and a position is worked out once, in the
niced child, never in the process that serves the requests."""

import asyncio
import contextlib
import re

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.db import connection
from django.test import Client

from dicegame import play
from dicegame.errors import GameActionError
from dicegame.models import Game, Turn
from dicegame.play import rooms
from dicegame.rules.scoring import Box
from live import pushes
from tests.support.factories import UserFactory, actor, befriend, client_for
from tests.support.games import open_turn, race, roll, two_player_game
from tests.support.sockets import connect
from winprob import chances as wp
from winprob import live

pytestmark = pytest.mark.django_db(transaction=True)

BAR_VERSION = re.compile(r'id="win-bar"[^>]*data-win-version="(\d+)"')


def new_game(host, friend) -> Game:
    game = rooms.room_create(actor=actor(host), seats=2, turn_seconds=0)
    rooms.room_join_by_link(token=game.invite_token, actor=actor(friend))
    return rooms.room_start(game_id=game.pk, actor=actor(host))


def watched(game: Game) -> Game:
    """As if a spectator's screen were open (the attack watched its games)."""
    Game.objects.filter(pk=game.pk).update(spectator_languages="en")
    game.spectator_languages = "en"
    return game


def people(host_name: str, friend_name: str) -> list:
    host, friend = UserFactory(username=host_name), UserFactory(username=friend_name)
    befriend(host, friend)
    return [host, friend]


def busy_games(count: int) -> tuple[list[Game], list]:
    """`count` watched games that one person (bo) hosts."""
    bo_and_cy = people("bo", "cy")
    return [watched(new_game(*bo_and_cy)) for _ in range(count)], bo_and_cy


def move_on(game: Game, people) -> None:
    """The next action of whoever's turn it is: a roll while rolls are left, else the first open box. (The
    game clock may have played an absent player's turn meanwhile: then that was the move.)"""
    turn = Turn.objects.select_related("player").get(game=game, completed_at__isnull=True)
    who = actor(next(p for p in people if p.pk == turn.player.user_id))
    with contextlib.suppress(GameActionError):
        if turn.rolls_used < 3:
            play.turn_roll(game_id=game.pk, actor=who, turn=turn.number, roll=turn.rolls_used)
            return
        box = next(b for b in Box if b in turn.player.sheet.options(tuple(turn.dice)))
        play.turn_choose_box(game_id=game.pk, actor=who, turn=turn.number, roll=3, box=box.name)
        play.turn_confirm(game_id=game.pk, actor=who, turn=turn.number, roll=3)


async def in_thread(function, *args):
    """Service code in a thread of its own, as a request runs on a server: what it queues is worked out
    by the process's worker and sent on this loop."""

    def run():
        try:
            return function(*args)
        finally:
            connection.close()

    return await sync_to_async(run, thread_sensitive=False)()


async def bar_of_version(communicator, version: int, timeout: float) -> str:
    """The first frame showing the bar of `version` (or a later one), waited for up to `timeout` s."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while (left := deadline - loop.time()) > 0:
        try:
            frame = await communicator.receive_from(timeout=left)
        except TimeoutError:
            break
        match = BAR_VERSION.search(frame)
        if match and int(match.group(1)) >= version:
            return frame
    raise AssertionError(f"no bar of version {version} within {timeout} s")


async def until(condition, timeout: float = 30) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def bars_of(games: list[Game], into: asyncio.Queue) -> None:
    """Put the id of each game whose bar is sent (to its game group) into `into`, for ever."""
    layer = get_channel_layer()

    async def listen(game_id):
        channel = await layer.new_channel()
        await layer.group_add(pushes.game_group(game_id), channel)
        try:
            while True:
                if (await layer.receive(channel))["type"] == "win.bar":
                    into.put_nowait(game_id)
        finally:
            await layer.group_discard(pushes.game_group(game_id), channel)

    await asyncio.gather(*(listen(game.pk) for game in games))


@pytest.mark.asyncio
async def test_a_busy_persons_games_do_not_hold_back_another_games_bar():
    """Items 5 and 15. A bar stayed on its figures while four boxes were written (on a spectator's
    screen and a player's), and one account with ten watched games made everyone's bar 26 s late: the
    worker took the newest job first, so a game whose positions came again while it was worked out went
    first again and again, and a game queued meanwhile waited for as long as the other kept moving.
    Here one person's three watched games get a new position each time one of them is worked out (they
    always have work waiting), and the victim's spectator must still get the bar of each of the
    victim's moves before that person's games have been served three times (see below)."""
    victim, host, _friend = await database_sync_to_async(two_player_game)()
    games, bo_and_cy = await database_sync_to_async(busy_games)(3)
    by_id = {game.pk: game for game in games}
    served: asyncio.Queue = asyncio.Queue()
    listening = asyncio.ensure_future(bars_of(games, served))
    watcher = await connect(victim.pk, None, query=f"?t={victim.invite_token}")
    await watcher.receive_from(timeout=5)
    try:
        for game in games:
            await in_thread(move_on, game, bo_and_cy)
        await until(lambda: live.queue().waiting() < len(games))  # one is being worked out
        for _ in range(2):
            await in_thread(roll, victim, actor(host))
            version = await database_sync_to_async(lambda: Game.objects.get(pk=victim.pk).version)()
            for game in games:  # the busy games move on again, after the victim
                await in_thread(move_on, game, bo_and_cy)
            victims_bar = asyncio.ensure_future(bar_of_version(watcher, version, timeout=60))
            # The victim's job is queued after its push, on this loop: the count starts once it waits
            # (a loaded machine may serve a busy game meanwhile, before the queue has a say).
            await until(lambda bar=victims_bar: ("bar", victim.pk) in live.queue() or bar.done(), timeout=60)
            while not served.empty():
                await in_thread(move_on, by_id[served.get_nowait()], bo_and_cy)
            busy_bars = 0
            while not victims_bar.done():
                try:
                    game_id = await asyncio.wait_for(served.get(), timeout=0.1)
                except TimeoutError:
                    continue
                busy_bars += 1
                # At most: the job in progress when the victim's was queued, the busy person's turn if it
                # came first in the rotation, and a bar worked out just before that was still on its way
                # to the socket (sent on this loop). The newest-first queue served them without end.
                assert busy_bars <= 3, (
                    "the busy person's games were served before the victim's again and again"
                )
                # Worked out: that game moves on at once, so the busy person always has work waiting.
                await in_thread(move_on, by_id[game_id], bo_and_cy)
            assert len(re.findall(r'data-chance="\d+"', victims_bar.result())) == 2
    finally:
        listening.cancel()
        await watcher.disconnect()
        assert await sync_to_async(live.queue().join)(60)  # nothing left for the next test to wait behind


def figures_of(game: Game) -> list[float] | None:
    """The figures of the game's position as it stands, if worked out (the shared cache)."""
    return wp.cached_chances(list(game.players.order_by("seat")), open_turn(game))


async def messages_on(channel: str, first_within: float = 30, quiet: float = 1.5) -> list[dict]:
    """What reaches a layer channel: the first message within `first_within` s, then until `quiet`."""
    layer = get_channel_layer()
    out = []
    with contextlib.suppress(TimeoutError):
        out.append(await asyncio.wait_for(layer.receive(channel), timeout=first_within))
        while True:
            out.append(await asyncio.wait_for(layer.receive(channel), timeout=quiet))
    return out


@pytest.mark.asyncio
async def test_the_page_never_works_chances_out_a_position_is_worked_out_once_and_shared():
    """Item 14: the endpoint worked the chances out in the web process, for every request, for anyone.
    Now a guest's request makes nothing be worked out; a logged-in viewer's asks for it once, and it is
    worked out in the niced child, once, for every game at that position."""
    layer = get_channel_layer()
    wp._distributions.clear()
    first, host, _friend = await database_sync_to_async(two_player_game)()
    second = await database_sync_to_async(lambda: new_game(*people("ida", "jan")))()
    url = f"/games/{first.pk}/win-bar/?t={first.invite_token}"
    get = database_sync_to_async(lambda client: client.get(url, headers={"HX-Request": "true"}).status_code)
    # A guest, however often: nothing comes back, and nothing is queued or worked out.
    assert [await get(Client()) for _ in range(5)] == [204] * 5
    assert live.queue().waiting() == 0 and await sync_to_async(live.queue().join)(0)
    assert await database_sync_to_async(figures_of)(first) is None
    # (A layer channel's receive that times out is dropped on Redis: listen only for what must come.)
    listener = await layer.new_channel()
    await layer.group_add(pushes.game_group(first.pk), listener)
    # A logged-in viewer, twice at once (a page and another tab): on its way, and worked out once.
    viewer = await database_sync_to_async(client_for)(
        await database_sync_to_async(UserFactory)(username="vera")
    )
    asked = await asyncio.gather(get(viewer), get(viewer))
    # The second finds it queued (202) or, if the child was quick, worked out (200).
    assert asked[0] == 202 and asked[1] in (200, 202)
    bars = await messages_on(listener)
    assert [b["type"] for b in bars] == ["win.bar"] and len(
        re.findall(r'data-chance="\d+"', bars[0]["html"])
    ) == 2
    # In the niced child: this process's own engine never ran.
    assert len(wp._distributions) == 0
    # Every game of two starts at the same position: the other game's page has the figures at once, and
    # so has a guest's request.
    page = await database_sync_to_async(Client().get)(f"/games/{second.pk}/?t={second.invite_token}")
    assert len(re.findall(r'data-chance="\d+"', page.content.decode())) == 2
    assert await get(Client()) == 200
    await layer.group_discard(pushes.game_group(first.pk), listener)
    assert await sync_to_async(live.queue().join)(60)


def test_a_logged_in_viewers_asks_are_bounded_even_at_once(settings):
    """The figures are asked for at most PENTA_WIN_BAR_ASKS_PER_MINUTE times a minute per person,
    counted in one atomic step: asks sent at once cannot all pass (on PostgreSQL + Redis, as run)."""
    settings.PENTA_WIN_BAR_ASKS_PER_MINUTE = 5
    game, host, _friend = two_player_game()
    viewer = UserFactory(username="vera")
    url = f"/games/{game.pk}/win-bar/?t={game.invite_token}"
    client_for(viewer).get(url, headers={"HX-Request": "true"})  # worked out (no worker here: at once)
    clients = [client_for(viewer) for _ in range(12)]
    answers = race(12, lambda: clients.pop().get(url, headers={"HX-Request": "true"}))
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200] * 4 + [429] * 8  # the first ask counted too
    refused = next(a for a in answers if a.status_code == 429)
    assert "Too many requests for the winning chances: wait a minute." in refused.content.decode()
