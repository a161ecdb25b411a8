"""Versions of what the pages cache: a number per thing that changes (a person's games, a daily
challenge's day, every finished game, who is off the boards or on the site-wide ones, the puzzle pool),
kept in the database and bumped inside the transaction that changes the thing. A cached value's key
names the versions it was computed from (`cached`), so the view after a change computes afresh, and
nothing is ever deleted (the old values expire unread).

Why in the database and not beside the values in the cache: the number commits with the change (no
reader ever pairs the new number with the old data), every process agrees without Redis, and a version
the cache evicted is still there. Reading the versions a page needs is one indexed query. A version
starts at the clock's nanoseconds when first bumped (or read: the site-wide ones), and a bump never hands
out a number the name had before, so a value cached before the database was emptied, restored or rolled
back (tests, a backup) is never taken for a new one. Until a person's or a day's first bump, what depends
on it is not cached (migration dicegame 0014 starts the versions of the people and days there were).

What bumps which (the writes that change what the pages show):
- `user(id)`: a game with the person's seat finishes, or its analysis is stored (the statistics, head to
  head, recent games, the rating section, the daily section); a guest's games or a local game's column
  become the person's; a rating refund; a tournament they entered writes its final table; a tournament
  round they played closes (its games join their records: `dicegame.records.secret_until`);
- `SITE`: any of those for anyone (the site-wide leaderboards);
- `day(date)`: an attempt of that day starts or finishes, or the day's par is stored (the day's page);
- `DAILY`: an attempt of a day that has ended finishes, or a par is stored (the all-time table and the
  players' best days);
- `PEOPLE`: someone joins or leaves the site-wide boards, or fair play changes someone's standing;
- `PUZZLES`: a puzzle joins the pool.
Data written behind the services' back (the admin, SQL, a test's factories) shows once one of these
moves, or after CACHE_SECONDS.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from cachetools import LRUCache
from django.core.cache import cache
from django.db import connection
from django.utils import timezone
from django.utils.translation import get_language

from dicegame import events
from dicegame.models import CacheVersion, Game
from dicegame.rules import days

SITE = "site"
PEOPLE = "people"
DAILY = "daily"
PUZZLES = "puzzles"
GLOBAL = frozenset({SITE, PEOPLE, DAILY, PUZZLES})

CACHE_SECONDS = 24 * 3600  # a value is never stale under its versions: this only frees the memory
LOCK_SECONDS = 30  # one request computes a missing value; the others wait for it at most this long
WAIT_SECONDS = 5.0
_POLL = 0.02


def user(user_id: int) -> str:
    return f"user:{user_id}"


def day(date: dt.date) -> str:
    return f"day:{date.isoformat()}"


def _fresh() -> int:
    """The clock's nanoseconds: a number no bump handed out before, whatever was rolled back since."""
    return time.time_ns()


def bump(*names: str) -> None:
    """Move these versions on, inside the caller's transaction (the new numbers commit with the change).
    One statement, the names in order: two transactions bumping the same names wait for each other in
    the same order, never in a deadlock."""
    names = sorted(set(names))
    if not names:
        return
    table = connection.ops.quote_name(CacheVersion._meta.db_table)
    rows = ", ".join(["(%s, %s)"] * len(names))
    params = [p for name in names for p in (name, _fresh())]
    # Never a number this name had before: not the old one plus one, which a rolled-back transaction
    # (or a restored backup) would hand out a second time for other data.
    greatest = "GREATEST" if connection.vendor == "postgresql" else "MAX"
    with connection.cursor() as cursor:
        cursor.execute(
            f'INSERT INTO {table} ("name", "value") VALUES {rows} ON CONFLICT ("name") DO UPDATE '
            f'SET "value" = {greatest}({table}."value" + 1, EXCLUDED."value")',
            params,
        )


def read(names: Iterable[str]) -> dict[str, int | None]:
    """The current versions of these names, in one query: None for a person or a day never bumped. The
    site-wide versions start at their first reading (they are a handful: nobody makes rows by asking)."""
    names = set(names)
    if not names:
        return {}
    found = dict(CacheVersion.objects.filter(name__in=sorted(names)).values_list("name", "value"))
    if (names & GLOBAL) - found.keys():  # all of them at once: a new database pays this once
        CacheVersion.objects.bulk_create(
            [CacheVersion(name=n, value=_fresh()) for n in sorted(GLOBAL)], ignore_conflicts=True
        )
        wanted = names & GLOBAL
        found |= dict(CacheVersion.objects.filter(name__in=wanted).values_list("name", "value"))
    return {name: found.get(name) for name in names}


# Part of every key: moved on when what is cached changes shape, so a release never reads the values
# an older one left in the shared cache.
CACHE_FORMAT = 1


def cache_key(key: str, versions: dict[str, int | None]) -> str:
    stamp = ",".join(f"{name}={value}" for name, value in sorted(versions.items()))
    return f"penta:v{CACHE_FORMAT}:" + hashlib.sha256(f"{key}|{stamp}".encode()).hexdigest()


# A value under a key that names its versions never changes: besides the shared cache (Redis in
# production), each process keeps the last LOCAL_ENTRIES it used in its own memory, as the objects
# themselves (no round trip, nothing to unpickle). They are shared by the requests: nobody changes them.
# A player page alone keeps about ten (its sections' rows and their markup, per language): fifty people
# reading their pages at once overflowed 1,000 and recomputed their statistics over and over
# (bench/read_pages.py, fifty clients: a third of the requests a second). cachetools' caches are not
# thread-safe (its documentation: guard them with a lock), and the requests run on several threads.
LOCAL_ENTRIES = 4000
_local: LRUCache[str, tuple] = LRUCache(maxsize=LOCAL_ENTRIES)
_local_lock = threading.Lock()


def _get(key: str) -> tuple | None:
    with _local_lock:
        boxed = _local.get(key)  # a hit is the most recently used now
    if boxed is not None:
        return boxed
    boxed = cache.get(key)  # (value,): a value may be None or empty
    if boxed is not None:
        _keep(key, boxed)
    return boxed


def _keep(key: str, boxed: tuple) -> None:
    with _local_lock:
        _local[key] = boxed  # the least recently used goes past LOCAL_ENTRIES


def _set(key: str, boxed: tuple) -> None:
    cache.set(key, boxed, CACHE_SECONDS)
    _keep(key, boxed)


@dataclass(frozen=True)
class Fragment:
    """Where a template fragment is cached (`{% versioned fragment %}`, dicegame.templatetags): the key
    names the versions its data came from and the language; `seconds` is 0 (not cached) while one of
    them was never bumped."""

    key: str
    seconds: int

    def get(self) -> str | None:
        boxed = _get(self.key) if self.seconds else None
        return boxed[0] if boxed is not None else None

    def set(self, html: str) -> None:
        if self.seconds:
            _set(self.key, (html,))


def fragment(key: str, versions: dict[str, int | None]) -> Fragment:
    if any(value is None for value in versions.values()):
        return Fragment("-", 0)
    return Fragment(cache_key(f"{key}:{get_language()}", versions), CACHE_SECONDS)


def peek(key: str, versions: dict[str, int | None]):
    """The value cached for `key` at these versions, or None (nothing is computed)."""
    if any(value is None for value in versions.values()):
        return None
    boxed = _get(cache_key(key, versions))
    return boxed[0] if boxed is not None else None


def cached[T](key: str, names: Iterable[str], compute: Callable[[], T], *, versions=None) -> T:
    """The value of `compute()` for `key` at the current versions of `names` (or the `versions` the
    caller read already), from this process's memory or the shared cache; computed once when missing,
    by one request while the others that want it wait (a change seen by fifty viewers at once costs one
    computation). The value is shared: the caller must not change it.

    While one of the versions was never bumped (its row is missing: data written behind the services'
    back, or a database just emptied), nothing is cached: the value is computed at every call."""
    versions = versions if versions is not None else read(names)
    if any(value is None for value in versions.values()):
        return compute()
    full = cache_key(key, versions)
    boxed = _get(full)
    if boxed is not None:
        return boxed[0]
    # One request computes, the others wait: Django's own idiom, `cache.add` (atomic where the cache is
    # shared: SET NX on Redis). dogpile.cache's lock would need the same of us, a mutex over Django's
    # cache (it has no Django backend), and fits values that expire and are regenerated, not these,
    # which are never stale under their versions: more code, not less.
    lock = full + ":lock"
    owner = cache.add(lock, 1, LOCK_SECONDS)
    if owner:
        # The one that computed it may have stored it and let the lock go between our look and our
        # lock: look again, or it is computed twice.
        boxed = _get(full)
        if boxed is not None:
            cache.delete(lock)
            return boxed[0]
    else:
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            time.sleep(_POLL)
            boxed = _get(full)
            if boxed is not None:
                return boxed[0]
        # The one computing it is slow or gone: compute it here too.
    try:
        value = compute()
        _set(full, (value,))
    finally:
        if owner:  # a waiter that gave up leaves the computing one's lock alone
            cache.delete(lock)
    return value


# -- what bumps them -----------------------------------------------------------------------------------


def game_names(game: Game, user_ids: Iterable[int | None]) -> set[str]:
    """What a finished game's results (or their analysis) change, these being its people: their pages,
    the site-wide boards, and a daily challenge's day. Nothing for a game without a person's account
    (a guest's game changes no page that is cached)."""
    names = {user(uid) for uid in user_ids if uid is not None}
    if names:
        names.add(SITE)
    if game.daily_date is not None and names:
        names.add(day(game.daily_date))
        if game.daily_date < days.today(timezone.now()):
            names.add(DAILY)  # a day that has ended: the all-time table, the best days
    return names


def on_game_finished(event: events.GameFinished) -> None:
    bump(*game_names(event.game, [p.user_id for p in event.players if not p.bot_strength]))


def on_guest_games_claimed(event: events.GuestGamesClaimed) -> None:
    bump(user(event.user.pk), SITE)
