"""Pushes after a change: each screen gets its own board and nothing of another seat's, what a screen
is pushed is what a fresh page shows it, and an action costs the same few SQL statements however many
screens watch it (none per screen)."""

import json
import re

import pytest
from channels.db import database_sync_to_async
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from dicegame import play
from dicegame.actors import Actor
from dicegame.models import Turn
from live import presence
from tests.support.factories import actor
from tests.support.games import two_player_game
from tests.support.sockets import connect, frame_with_version

REGIONS = ("turn-status", "dice-tray", "scoresheet")


def region(html: str, name: str) -> str:
    """The region's section, as a page would hold it: without the out-of-band marker, the CSRF field
    (a page has one, a push does not need it: htmx sends the token in a header) and layout spaces."""
    match = re.search(rf'<section id="{name}".*?</section>', html, re.S)
    assert match, f"no #{name} in {html[:300]}"
    text = match.group(0).replace(' hx-swap-oob="morph"', "")
    text = re.sub(r'<input type="hidden" name="csrfmiddlewaretoken"[^>]*>', "", text)
    # Timers count down between two renders.
    text = re.sub(r'(data-(?:deadline|countdown)-ms)="\d+"', r'\1="…"', text)
    text = re.sub(r"(data-(?:deadline|countdown)-seconds[^>]*>)\d+", r"\1…", text)
    text = re.sub(r"delay:\d+ms", "delay:…", text)
    return re.sub(r">\s+<", "><", re.sub(r"\s+", " ", text))


def enabled_controls(html: str) -> list[str]:
    """The game's buttons in `html` that can be pressed (dice, boxes, roll, confirm, take back)."""
    buttons = re.findall(r"<button\b[^>]*>", html)
    return [
        b
        for b in buttons
        if re.search(r'data-(die|box)="|data-action="(roll|confirm|take-back)"', b)
        and not re.search(r"\sdisabled\b", b)
    ]


# -- through the real sockets ---------------------------------------------------------------------------


def page_for(user, game, token=""):
    client = Client()
    if user is not None:
        client.force_login(user)
    return client.get(f"/games/{game.pk}/" + (f"?t={token}" if token else "")).content.decode()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_each_screen_gets_its_own_board_and_no_other_seats_controls():
    game, host, friend = await database_sync_to_async(two_player_game)()
    to_host = await connect(game.pk, host)
    to_friend = await connect(game.pk, friend)
    to_watcher = await connect(game.pk, None, query=f"?t={game.invite_token}")  # logged out, with the link
    for communicator in (to_host, to_friend, to_watcher):
        await communicator.receive_from(timeout=5)
    version = await database_sync_to_async(lambda: type(game).objects.get(pk=game.pk).version)()

    await to_host.send_to(text_data=json.dumps({"action": "roll", "turn": 1, "roll": 0}))
    mine = await frame_with_version(to_host, version + 1)
    theirs = await frame_with_version(to_friend, version + 1)
    watched = await frame_with_version(to_watcher, version + 1)

    # The player whose turn it is may hold dice, choose boxes and roll again: only on their screen.
    assert len(enabled_controls(mine)) >= 5 + 1
    assert enabled_controls(theirs) == [] and enabled_controls(watched) == []
    # The same dice reach everybody.
    dice = re.findall(r'data-die="\d" data-value="(\d)"', mine)
    assert len(dice) == 5
    assert re.findall(r'data-die="\d" data-value="(\d)"', theirs) == dice
    assert re.findall(r'data-die="\d" data-value="(\d)"', watched) == dice
    # Who you are is yours: only the spectator is told they watch.
    assert "You are watching this game." in watched
    assert "You are watching this game." not in mine + theirs
    for communicator in (to_host, to_friend, to_watcher):
        await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_what_a_screen_is_pushed_is_what_a_fresh_page_shows():
    game, host, friend = await database_sync_to_async(two_player_game)()
    a = actor(host)
    await database_sync_to_async(play.turn_roll)(game_id=game.pk, actor=a, turn=1, roll=0)
    await database_sync_to_async(play.turn_toggle_hold)(game_id=game.pk, actor=a, turn=1, roll=1, die=2)
    # A spectator who comes in the middle of the game gets the board a fresh page shows them.
    to_watcher = await connect(game.pk, None, query=f"?t={game.invite_token}")
    first = await to_watcher.receive_from(timeout=5)
    page = await database_sync_to_async(page_for)(None, game, game.invite_token)
    for name in REGIONS:
        assert region(first, name) == region(page, name), name
    # After a change, each screen's push is what a fresh page shows that viewer.
    to_friend = await connect(game.pk, friend)
    await to_friend.receive_from(timeout=5)
    await database_sync_to_async(play.turn_choose_box)(game_id=game.pk, actor=a, turn=1, roll=1, box="CHANCE")
    version = await database_sync_to_async(lambda: type(game).objects.get(pk=game.pk).version)()
    pushed = {"friend": await frame_with_version(to_friend, version), "watcher": None}
    pushed["watcher"] = await frame_with_version(to_watcher, version)
    fresh = {
        "friend": await database_sync_to_async(page_for)(friend, game),
        "watcher": await database_sync_to_async(page_for)(None, game, game.invite_token),
    }
    for viewer in pushed:
        # A choice redraws the turn status and the sheet only.
        assert 'id="dice-tray"' not in pushed[viewer]
        for name in ("turn-status", "scoresheet"):
            assert region(pushed[viewer], name) == region(fresh[viewer], name), (viewer, name)
    await to_watcher.disconnect()
    await to_friend.disconnect()


# -- SQL statements per action, with and without screens --------------------------------------------------


def open_screens(game, host, friend):
    """Both seats' screens and spectators in two languages, as sockets register them."""
    for user, channel in ((host, "seat-a"), (friend, "seat-b")):
        presence.game_socket_opened(
            game_id=game.pk,
            actor=Actor(user_id=user.pk),
            identity=f"user:{user.pk}",
            channel_name=f"test.{channel}",
            language="en",
        )
    for i, language in enumerate(["en", "nl", "nl"]):
        presence.game_socket_opened(
            game_id=game.pk,
            actor=Actor(),
            identity=f"ip:10.0.0.{i}",
            channel_name=f"test.watch-{i}",
            language=language,
        )


def statements(django_capture_on_commit_callbacks, action) -> list[str]:
    """The SQL statements of one action, the pushes made after its commit included."""
    with CaptureQueriesContext(connection) as queries, django_capture_on_commit_callbacks(execute=True):
        action()
    # The test's own transaction makes the service's a savepoint: not a statement of the action.
    return [q["sql"] for q in queries.captured_queries if "SAVEPOINT" not in q["sql"]]


def statements_of_one_turn(game, actor, django_capture_on_commit_callbacks) -> dict[str, list[str]]:
    number = Turn.objects.get(game=game, completed_at__isnull=True).number
    steps = {
        "roll": lambda: play.turn_roll(game_id=game.pk, actor=actor, turn=number, roll=0),
        "hold": lambda: play.turn_toggle_hold(game_id=game.pk, actor=actor, turn=number, roll=1, die=1),
        "choose": lambda: play.turn_choose_box(
            game_id=game.pk, actor=actor, turn=number, roll=1, box="CHANCE"
        ),
        "confirm": lambda: play.turn_confirm(game_id=game.pk, actor=actor, turn=number, roll=1),
    }
    return {name: statements(django_capture_on_commit_callbacks, step) for name, step in steps.items()}


@pytest.mark.django_db
def test_an_action_costs_a_few_statements_and_none_per_screen(django_capture_on_commit_callbacks):
    game, host, friend = two_player_game()
    a, b = actor(host), actor(friend)
    quiet = statements_of_one_turn(game, a, django_capture_on_commit_callbacks)  # nobody watching
    open_screens(game, host, friend)
    watched = statements_of_one_turn(
        game, b, django_capture_on_commit_callbacks
    )  # two seats, three spectators
    for name in ("roll", "hold", "choose"):
        # The lock with the new version, the seats, the turn, the turn's update: on PostgreSQL the first
        # three are one statement (dicegame.play.kernel.lock_bump_and_read).
        most = 2 if connection.vendor == "postgresql" else 4
        assert len(quiet[name]) <= most, (name, quiet[name])
    assert len(quiet["confirm"]) <= 7, quiet["confirm"]  # + the sheet, the next turn
    for name in quiet:
        # A screen costs no statement (the next player's screen open even spares the notification).
        assert len(watched[name]) <= len(quiet[name]), (name, watched[name])
