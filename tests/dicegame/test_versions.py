"""The versions of what the pages cache: a bump moves a version on inside its transaction and never hands
out a number twice, a value is computed once per version and by one request at a time, nothing is cached
for a version never bumped, and what bumps them (a finished game of a person, a guest's claim)."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from cachetools import LRUCache
from django.db import transaction
from django.utils import timezone

from core import versions
from dicegame import play
from dicegame.models import CacheVersion, Game
from dicegame.rules import days
from dicegame.rules.scoring import Box
from tests.support.environment import forget_cached
from tests.support.factories import UserFactory, actor
from tests.support.games import place, play_turn, roll
from tests.support.history import made_up_result

pytestmark = pytest.mark.django_db


def value(name: str) -> int | None:
    return versions.read([name])[name]


def test_a_bump_moves_a_version_on_and_never_hands_out_a_number_twice():
    versions.bump("thing")
    first = value("thing")
    versions.bump("thing", "other")
    assert value("thing") > first and value("other") is not None
    before = value("thing")
    # A bump rolled back with its change: the next one gets a number of its own, not the same again.
    try:
        with transaction.atomic():
            versions.bump("thing")
            rolled_back = value("thing")
            raise RuntimeError
    except RuntimeError:
        pass
    assert value("thing") == before
    versions.bump("thing")
    assert value("thing") not in (before, rolled_back)


def test_a_person_or_a_day_never_bumped_has_no_version_and_the_site_wide_ones_start_when_read():
    assert versions.read([versions.user(123456), versions.day(dt.date(2026, 1, 2))]) == {
        versions.user(123456): None,
        versions.day(dt.date(2026, 1, 2)): None,
    }
    assert CacheVersion.objects.filter(name__startswith="user:").count() == 0  # asking makes no row
    assert value(versions.SITE) is not None and value(versions.PEOPLE) is not None


def test_a_value_is_computed_once_per_version():
    calls = []

    def compute():
        calls.append(1)
        return len(calls)

    versions.bump("thing")
    assert versions.cached("key", ["thing"], compute) == 1
    assert versions.cached("key", ["thing"], compute) == 1
    versions.bump("thing")
    assert versions.cached("key", ["thing"], compute) == 2
    assert calls == [1, 1]


def test_nothing_is_cached_while_a_version_was_never_bumped():
    calls = []
    for _ in range(2):
        versions.cached("key", ["never"], lambda: calls.append(1))
    assert len(calls) == 2
    assert versions.fragment("key", versions.read(["never"])).seconds == 0
    versions.bump("never")
    fragment = versions.fragment("key", versions.read(["never"]))
    assert fragment.seconds > 0 and fragment.key != versions.fragment("key", {"never": 1}).key


def test_fifty_viewers_of_a_change_cost_one_computation(monkeypatch):
    # The waiters give up after WAIT_SECONDS: starting fifty threads (each with its own Redis
    # connection) on a loaded machine may take longer than that, which is not what this test is about.
    monkeypatch.setattr(versions, "WAIT_SECONDS", 60.0)
    started, release = threading.Event(), threading.Event()
    calls = []

    def compute():
        calls.append(1)
        started.set()
        release.wait(60)
        return "the boards"

    results = []
    # The versions as a page read them: no database in the threads.
    current = {"thing": 7}

    def view():
        results.append(versions.cached("one-flight", [], compute, versions=current))

    first = threading.Thread(target=view)
    first.start()
    assert started.wait(5)
    others = [threading.Thread(target=view) for _ in range(49)]
    for t in others:
        t.start()
    release.set()
    for t in [first, *others]:
        t.join(60)
    assert results == ["the boards"] * 50 and calls == [1]


def test_a_persons_finished_game_moves_their_version_and_the_sites():
    user = UserFactory()
    game = play.game_create_solo(actor=actor(user))
    before = versions.read([versions.user(user.pk), versions.SITE])
    for _ in range(13):
        play_turn(game, user)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    after = versions.read([versions.user(user.pk), versions.SITE])
    assert after[versions.user(user.pk)] is not None and after[versions.SITE] != before[versions.SITE]


def test_a_guests_finished_game_moves_nothing(guest_actor):
    """A guest cannot make the boards be worked out again at will."""
    game = play.game_create_solo(actor=guest_actor)
    before = versions.read([versions.SITE, versions.PEOPLE, versions.DAILY])
    for _ in range(13):
        turn = roll(game, guest_actor)
        place(game, guest_actor, next(b for b in Box if b not in turn.player.sheet.boxes))
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert versions.read([versions.SITE, versions.PEOPLE, versions.DAILY]) == before
    assert CacheVersion.objects.filter(name__startswith="user:").count() == 0


def test_a_finished_attempt_of_a_day_gone_moves_the_all_time_table_and_todays_does_not():
    user = UserFactory()
    today = made_up_result(user, days.today(timezone.now()), 200).game
    gone = made_up_result(user, dt.date(2020, 1, 1), 200).game
    assert versions.DAILY not in versions.game_names(today, [user.pk])
    assert versions.game_names(gone, [user.pk]) == {
        versions.user(user.pk),
        versions.SITE,
        versions.day(dt.date(2020, 1, 1)),
        versions.DAILY,
    }


def test_a_value_is_kept_in_the_process_when_the_shared_cache_has_forgotten_it():
    calls = []
    versions.bump("thing")
    versions.cached("kept", ["thing"], lambda: calls.append(1) or "value")
    forget_cached()
    assert versions.cached("kept", ["thing"], lambda: calls.append(1) or "again") == "value"
    assert calls == [1]


def test_the_process_keeps_only_its_last_values(monkeypatch):
    monkeypatch.setattr(versions, "_local", LRUCache(maxsize=2))
    versions.bump("thing")
    current = versions.read(["thing"])
    for key in ("a", "b", "c"):
        versions.cached(key, [], lambda key=key: key, versions=current)
    forget_cached()
    # "a" was the oldest of three: gone from the process and from the shared cache, computed again.
    assert versions.cached("a", [], lambda: "a again", versions=current) == "a again"
    assert versions.cached("c", [], lambda: "c again", versions=current) == "c"


def test_a_value_read_again_is_kept_longer_than_one_left_unread(monkeypatch):
    """Least recently used, not first in: a page's rows read on every view stay while others come."""
    monkeypatch.setattr(versions, "_local", LRUCache(maxsize=2))
    versions.bump("thing")
    current = versions.read(["thing"])
    versions.cached("hot", [], lambda: "hot", versions=current)
    versions.cached("cold", [], lambda: "cold", versions=current)
    assert versions.cached("hot", [], lambda: "hot again", versions=current) == "hot"
    versions.cached("new", [], lambda: "new", versions=current)
    forget_cached()
    assert versions.cached("hot", [], lambda: "hot again", versions=current) == "hot"
    assert versions.cached("cold", [], lambda: "cold again", versions=current) == "cold again"


def test_the_process_memory_holds_under_threads_reading_and_writing_at_once(monkeypatch):
    """The requests' threads share it (cachetools' caches are not thread-safe on their own): many
    threads storing and reading past its size never break it nor leave it over its size."""
    local = LRUCache(maxsize=50)
    monkeypatch.setattr(versions, "_local", local)
    errors = []

    def work(n):
        try:
            for i in range(2000):
                key = f"k{(n * 7919 + i) % 300}"
                versions._keep(key, (key,))
                boxed = versions._get(f"k{(n + i) % 300}")
                assert boxed is None or boxed == (f"k{(n + i) % 300}",)
        except Exception as exc:  # any failure is the finding
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors and len(local) <= 50
