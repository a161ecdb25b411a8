"""The operators' metrics: /metrics answers a direct loopback scraper only, and after a live game it
says what happened (actions by kind, the time from an action to its push written, open sockets, the
clock's lag, notifications)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.utils import timezone

from dicegame import play
from dicegame.errors import GameActionError
from dicegame.models import Turn
from dicegame.play.clock import games_settle_overdue
from tests.support import ROOT
from tests.support.factories import actor
from tests.support.games import current, two_player_game
from tests.support.sockets import connect, frame_with_version, version_of


def scrape(client: Client | None = None, **extra) -> str:
    answer = (client or Client()).get("/metrics", **extra)
    assert answer.status_code == 200 and answer["Content-Type"].startswith("text/plain")
    return answer.content.decode()


def value(text: str, name: str, **labels) -> float:
    """A sample's value in the exposition (0 when it is not there yet)."""
    wanted = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    pattern = re.escape(name) + (r"\{" + re.escape(wanted) + r"\}" if labels else "") + r" (\S+)"
    found = re.search(r"^" + pattern + r"$", text, re.M)
    return float(found.group(1)) if found else 0.0


def test_a_loopback_scraper_reads_them(db):
    text = scrape()
    assert "# TYPE penta_actions_total counter" in text
    assert "# TYPE penta_push_seconds histogram" in text
    assert "# TYPE penta_open_sockets gauge" in text
    assert "# TYPE penta_clock_lag_seconds gauge" in text
    assert "# TYPE penta_notifications_total counter" in text


@pytest.mark.parametrize(
    "extra",
    [
        {"REMOTE_ADDR": "10.0.0.5"},
        {"REMOTE_ADDR": "203.0.113.9"},
        # Through the proxy (which always sets it), even from loopback.
        {"HTTP_X_FORWARDED_FOR": "127.0.0.1"},
        {"HTTP_X_REAL_IP": "127.0.0.1"},
    ],
)
def test_nobody_else_does(db, extra):
    answer = Client().get("/metrics", **extra)
    assert answer.status_code == 404 and b"penta_actions" not in answer.content


def test_a_post_is_not_a_scrape(db):
    answer = Client(enforce_csrf_checks=True).post("/metrics")
    assert answer.status_code in (403, 404) and b"penta_actions" not in answer.content


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_after_a_live_turn_they_say_what_happened():
    game, host, friend = await database_sync_to_async(two_player_game)()
    before = await database_sync_to_async(scrape)()
    to_friend = await connect(game.pk, friend)
    await to_friend.receive_from(timeout=5)
    during = await database_sync_to_async(scrape)()
    sockets = value(before, "penta_open_sockets", kind="game")
    assert value(during, "penta_open_sockets", kind="game") == sockets + 1

    def a_turn():
        t = current(game.pk)
        play.turn_roll(game_id=game.pk, actor=actor(host), turn=t.number, roll=0)
        with pytest.raises(GameActionError):  # refused: not the friend's turn
            play.turn_roll(game_id=game.pk, actor=actor(friend), turn=t.number, roll=1)
        t = current(game.pk)
        box = next(iter(t.player.sheet.options(tuple(t.dice))))
        play.turn_choose_box(game_id=game.pk, actor=actor(host), turn=t.number, roll=1, box=box.name)
        return play.turn_confirm(game_id=game.pk, actor=actor(host), turn=t.number, roll=1).version

    version = await database_sync_to_async(a_turn)()
    await frame_with_version(to_friend, version)
    after = await database_sync_to_async(scrape)()
    for kind in ("roll", "choose", "confirm"):
        assert (
            value(after, "penta_actions_total", kind=kind)
            == value(before, "penta_actions_total", kind=kind) + 1
        )
    assert value(after, "penta_actions_refused_total", kind="roll") == (
        value(before, "penta_actions_refused_total", kind="roll") + 1
    )
    # Every push of the three actions written to the friend's socket was timed from its action.
    pushed = value(after, "penta_push_seconds_count") - value(before, "penta_push_seconds_count")
    assert pushed >= 1
    assert value(after, "penta_push_seconds_bucket", le="+Inf") >= value(after, "penta_push_seconds_count")
    # And for each of them, where its time went: the stages add up to the whole.
    for stage in ("applied", "queued", "transit"):
        counted = value(after, "penta_push_stage_seconds_count", stage=stage)
        assert counted - value(before, "penta_push_stage_seconds_count", stage=stage) == pushed
    whole = value(after, "penta_push_seconds_sum") - value(before, "penta_push_seconds_sum")
    parts = sum(
        value(after, "penta_push_stage_seconds_sum", stage=stage)
        - value(before, "penta_push_stage_seconds_sum", stage=stage)
        for stage in ("applied", "queued", "transit")
    )
    assert parts == pytest.approx(whole, abs=1e-6)
    await to_friend.disconnect()
    gone = await database_sync_to_async(scrape)()
    assert value(gone, "penta_open_sockets", kind="game") == sockets


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_an_action_over_a_socket_is_timed_from_its_frame():
    game, host, friend = await database_sync_to_async(two_player_game)()
    to_host = await connect(game.pk, host)
    version = version_of(await to_host.receive_from(timeout=5))
    before = await database_sync_to_async(scrape)()
    await to_host.send_to(text_data=json.dumps({"action": "roll", "turn": 1, "roll": 0}))
    await frame_with_version(to_host, version + 1)
    after = await database_sync_to_async(scrape)()
    waited = value(after, "penta_push_stage_seconds_count", stage="waited")
    assert waited == value(before, "penta_push_stage_seconds_count", stage="waited") + 1
    # Its own push, written to the host's screen, was timed stage by stage too.
    assert value(after, "penta_push_stage_seconds_count", stage="transit") == (
        value(before, "penta_push_stage_seconds_count", stage="transit") + 1
    )
    await to_host.disconnect()


def test_the_clock_says_how_late_its_oldest_due_work_is(db):
    game, host, friend = two_player_game()
    t = current(game.pk)
    play.turn_roll(game_id=game.pk, actor=actor(host), turn=t.number, roll=0)
    play.turn_roll(game_id=game.pk, actor=actor(host), turn=t.number, roll=1)
    play.turn_roll(game_id=game.pk, actor=actor(host), turn=t.number, roll=2)
    Turn.objects.filter(pk=t.pk).update(auto_commit_at=timezone.now() - timedelta(seconds=30))
    games_settle_overdue()
    assert value(scrape(), "penta_clock_lag_seconds") >= 30
    games_settle_overdue()  # the auto-commit was written: nothing is late now
    assert value(scrape(), "penta_clock_lag_seconds") == 0


def test_a_notification_is_counted_by_channel_and_outcome(db):
    from notifications import services as notifications
    from notifications.models import Notification

    game, host, friend = two_player_game()
    t = current(game.pk)
    before = value(scrape(), "penta_notifications_total", channel="push", outcome="skipped")
    # A turn already played by the time its notification goes: skipped, and counted so (as is the
    # "your turn" of the game's first turn: nobody has a device to reach).
    Notification.objects.create(
        user=host,
        game=game,
        kind=Notification.Kind.YOUR_TURN,
        turn_number=t.number + 100,
        due_at=timezone.now(),
    )
    due = Notification.objects.filter(state=Notification.State.PENDING, due_at__lte=timezone.now()).count()
    assert due >= 1
    notifications.send_due()
    assert not Notification.objects.filter(
        state=Notification.State.PENDING, due_at__lte=timezone.now()
    ).exists()
    assert value(scrape(), "penta_notifications_total", channel="push", outcome="skipped") == before + due


def test_with_several_processes_each_answer_adds_them_all_up(tmp_path):
    """Production: PROMETHEUS_MULTIPROC_DIR shared by the web processes and the clock."""
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    count = "from core import metrics; metrics.ACTIONS.labels('roll').inc(3)"
    for _ in range(2):
        subprocess.run([sys.executable, "-c", count], env=env, check=True, cwd=ROOT)
    show = "from core import metrics; print(metrics.exposition()[0].decode())"
    out = subprocess.run(
        [sys.executable, "-c", show], env=env, check=True, cwd=ROOT, capture_output=True, text=True
    )
    assert value(out.stdout, "penta_actions_total", kind="roll") == 6
