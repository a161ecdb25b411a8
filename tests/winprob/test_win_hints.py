"""The hint "best to win" (dicegame.screen.win_hints, winprob.hints): beside "best for your total" in a
casual game against opponents with hints on, with both figures; worked out once per position off the
request (in the niced child on a server) and pushed to the seat whose position it is; never asked for
by a page load, so nobody (a guest included) can make it be worked out at will."""

import asyncio
import re

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.core.cache import cache
from django.test import Client

from dicegame import play
from dicegame.models import Game, Player, Turn
from dicegame.rules.scoring import Box
from dicegame.screen import win_hints
from dicegame.strategy import win_tables
from live import pushes
from live.consumers import GameConsumer
from live.presence import Opened
from tests.support.environment import forget_cached
from tests.support.factories import GameFactory, PlayerFactory, UserFactory, actor, client_for
from winprob import hints
from winprob import live as winprob_live

UPPER_63 = {b.name: 3 * b.face for b in Box if b.is_upper}
BEHIND = {**UPPER_63, **{b.name: 0 for b in Box if not b.is_upper and b not in (Box.CHANCE, Box.PENTA)}}
AHEAD = {**UPPER_63, **{b.name: 0 for b in Box if not b.is_upper}, "THREE_OF_A_KIND": 30, "CHANCE": 30}


@pytest.fixture(autouse=True)
def _no_hints_worked_out():
    forget_cached(key="winhint:*")
    yield
    forget_cached(key="winhint:*")


def known_position(user, *, kind=Game.Kind.COMPUTER, rated=False, hints_on=False) -> Game:
    """The person (seat 0, `user`) to write 1-1-2-3-5 after three rolls, Chance and Penta open, 60
    behind the computer (seat 1), which has finished: to win, 12 in Chance (only a Penta can still pass
    60); for the total, 0 in Penta."""
    game = GameFactory(kind=kind, rated=rated)
    PlayerFactory(game=game, seat=0, user=user, boxes=BEHIND, total=98, hints=hints_on)
    bot = Player.objects.create(
        game=game, seat=1, bot_strength="hard", name="Computer", boxes=AHEAD, total=158
    )
    dice = [1, 1, 2, 3, 5]
    Turn.objects.create(
        game=game,
        player=game.players.get(seat=0),
        number=26,
        round=13,
        dice=dice,
        held=[False] * 5,
        rolls=[{"dice": dice, "held": [False] * 5}] * 3,
    )
    assert bot.total - 98 == 60
    return game


def hint_of(html: str) -> str:
    found = re.search(r'<div id="win-hint".*?</div>', html, re.S)
    return found.group(0) if found else ""


def hint_keys() -> list[str]:
    """This run's stored hints (not their claims), on the in-memory cache or on Redis."""
    if hasattr(cache._cache, "get_client"):  # Django's RedisCache
        made = cache._cache.get_client().scan_iter(match=cache.make_key("winhint:*"))
        keys = [k.decode() if isinstance(k, bytes) else k for k in made]
    else:  # LocMemCache
        keys = list(getattr(cache, "_cache", {}))
    return [k for k in keys if "winhint" in k and ":claim" not in k]


@pytest.mark.django_db
def test_hints_on_show_best_to_win_beside_best_for_the_total_with_both_figures(
    django_capture_on_commit_callbacks,
):
    user = UserFactory()
    game = known_position(user)
    client = client_for(user)
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(f"/games/{game.pk}/hints/", {"on": "1"}).status_code in (200, 302)
    hint = hint_of(client.get(f"/games/{game.pk}/").content.decode())
    assert 'data-win-hint="differs"' in hint
    assert "Best to win: Write 12 in Chance (5% to win)." in hint
    assert "Best for your total: Write 0 in Penta (0% to win)." in hint
    # The general hint still gives the best move for the total.
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "Write 0 in Penta" in re.search(r"data-hint-sentence>([^<]*)<", page).group(1)
    dutch = hint_of(client.get(f"/games/{game.pk}/", HTTP_ACCEPT_LANGUAGE="nl").content.decode())
    assert "Het beste om te winnen: Vul 12 in bij Chance (5% kans om te winnen)." in dutch


@pytest.mark.django_db
def test_the_figures_are_worked_out_once_per_position_and_shared(django_capture_on_commit_callbacks):
    first, second = UserFactory(), UserFactory()
    games = [known_position(first), known_position(second)]
    for user, game in zip((first, second), games, strict=True):
        with django_capture_on_commit_callbacks(execute=True):
            play.game_set_hints(game_id=game.pk, actor=actor(user), on=True)
    assert len(hint_keys()) == 1  # the same position in two games: one hint


@pytest.mark.django_db
@pytest.mark.parametrize(
    "setup",
    ["hints off", "rated", "against friends", "solo"],
)
def test_no_best_to_win_without_hints_or_outside_casual_games_against_opponents(
    setup, django_capture_on_commit_callbacks
):
    user = UserFactory()
    kind = {"against friends": Game.Kind.FRIENDS, "solo": Game.Kind.SOLO}.get(setup, Game.Kind.COMPUTER)
    game = known_position(user, kind=kind, rated=setup == "rated", hints_on=setup != "hints off")
    if setup == "solo":
        Player.objects.filter(game=game, seat=1).delete()
    with django_capture_on_commit_callbacks(execute=True):
        hints.after_push(Game.objects.get(pk=game.pk), None)
    assert hint_keys() == []
    assert "data-win-hint" not in client_for(user).get(f"/games/{game.pk}/").content.decode()


@pytest.mark.django_db
def test_page_loads_never_work_a_hint_out():
    """Only a change in the game asks for a hint: viewing the page (a guest's, a spectator's, the
    player's own, as often as anyone likes) makes nothing be worked out."""
    user = UserFactory()
    game = known_position(user, hints_on=True)
    for client in (client_for(user), Client()):
        for _ in range(3):
            client.get(f"/games/{game.pk}/")
    assert hint_keys() == []
    # While a position's hint is on its way (claimed by the worker), the hints say so.
    position = win_hints.hint_position(game, list(game.players.order_by("seat")), Turn.objects.get(game=game))
    cache.set(win_hints.claim_key(position.key), 1, 30)
    assert "data-win-hint-pending" in client_for(user).get(f"/games/{game.pk}/").content.decode()


@pytest.mark.django_db
def test_the_page_asks_for_a_pending_hint_which_only_reads_the_cache(django_capture_on_commit_callbacks):
    user = UserFactory()
    game = known_position(user, hints_on=True)
    position = win_hints.hint_position(game, list(game.players.order_by("seat")), Turn.objects.get(game=game))
    url = f"/games/{game.pk}/win-hint/"
    # On its way: the placeholder asks again (a read), and the answer is the placeholder again.
    cache.set(win_hints.claim_key(position.key), 1, 30)
    page = client_for(user).get(f"/games/{game.pk}/").content.decode()
    assert f'hx-get="{url}" hx-trigger="every 2s"' in hint_of(page)
    assert "data-win-hint-pending" in client_for(user).get(url).content.decode()
    assert hint_keys() == []
    # Worked out: the figures; for anyone but the player to move, nothing.
    with django_capture_on_commit_callbacks(execute=True):
        hints.after_push(Game.objects.get(pk=game.pk), None)
    cache.delete(win_hints.claim_key(position.key))
    answer = client_for(user).get(url).content.decode()
    assert 'data-win-hint="differs"' in answer and "hx-get" not in answer
    for other in (Client(), client_for(UserFactory())):  # nobody else sees the game, nor its hint
        answer = other.get(url)
        assert answer.status_code == 404 and "data-win-hint" not in answer.content.decode()


def test_without_tables_on_disk_nothing_is_asked_for(monkeypatch, tmp_path):
    monkeypatch.setenv("PENTA_WIN_TABLES_PATH", str(tmp_path / "none.npz"))
    assert not win_tables.on_disk()


async def received(channel: str, quiet: float = 2.0) -> list[dict]:
    layer = get_channel_layer()
    out = []
    while True:
        try:
            out.append(await asyncio.wait_for(layer.receive(channel), timeout=quiet))
        except TimeoutError:
            if await sync_to_async(winprob_live.queue().join)(0):
                return out


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_on_a_server_the_hint_is_worked_out_in_the_child_and_pushed_for_its_position():
    user = await database_sync_to_async(UserFactory)()
    game = await database_sync_to_async(known_position)(user)
    layer = get_channel_layer()
    listener = await layer.new_channel()
    await layer.group_add(pushes.game_group(game.pk), listener)
    await database_sync_to_async(play.game_set_hints)(game_id=game.pk, actor=actor(user), on=True)
    pushed = [m for m in await received(listener, quiet=5) if m["type"] == "win.hint"]
    assert len(pushed) == 1
    seat = await database_sync_to_async(lambda: game.players.get(seat=0).pk)()
    assert pushed[0]["seat"] == seat and pushed[0]["language"] == "en" and not pushed[0]["local"]
    html = pushed[0]["html"]
    assert "Best to win: Write 12 in Chance" in html
    # It replaces the hint of the position it was worked out for only.
    key = re.search(r'data-position="([^"]+)"', html).group(1)
    assert f"hx-swap-oob=\"outerHTML:#win-hint[data-position='{key}']\"" in html
    await layer.group_discard(pushes.game_group(game.pk), listener)


def test_the_socket_forwards_the_hint_to_its_seat_only():
    event = {"type": "win.hint", "seat": 7, "local": False, "language": "en", "html": "H"}
    for seat_id, language, local, expected in [
        (7, "en", False, ["H"]),
        (8, "en", False, []),
        (None, "en", False, []),  # a spectator
        (7, "nl", False, []),
        (8, "en", True, ["H"]),  # a local game's one device
    ]:
        consumer = GameConsumer()
        consumer.language = language
        consumer.opened = Opened(seat_id=seat_id, taken_over="")
        got = []

        async def send(text_data=None, got=got):
            got.append(text_data)

        consumer.send = send
        asyncio.run(consumer.win_hint({**event, "local": local}))
        assert got == expected, (seat_id, language, local)
