"""Page weight: everything a first visit to a game page downloads in its first seconds, compressed as
the server sends it: the page's HTML gzipped at level 6 (GZipMiddleware's), every stylesheet and script it
references, the scripts penta.js fetches right after the load (base.html's meta "penta-later": the
morphing of answers, live.js where a socket opens) and the icon, as collectstatic made them (minified,
gzipped by zopfli). The aim is 30 KB for all of it. moments.js, fetched only when the page first needs
it (a moment to show, sound switched on), is weighed apart. And compressed static serving is real: in
production (collectstatic with the project's minifying, compressing manifest storage) every stylesheet
and script has its .gz, and WhiteNoise answers with it."""

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

# The aim for everything a first visit downloads in its first 5 s (issue 42).
AIM = 30 * 1024
ON_DEMAND_BUDGET = 3 * 1024
# Where the pages stand (docs/performance.md: the aim is missed; htmx alone is 16 KB): no byte more.
# (The phone screen's keys and sheet added 0.8 KB to penta.js and the HTML.)
AIM_SOLO_TODAY = int(32.4 * 1024)
AIM_LIVE_TODAY = int(34.6 * 1024)
ASSET = re.compile(r'<(?:link[^>]*rel="stylesheet"[^>]*href|script[^>]*src)="([^"]+)"')
ICON = re.compile(r'<link rel="icon" href="([^"]+)"')
LATER = re.compile(r'<meta name="penta-later" content="([^"]*)"')
ON_DEMAND = re.compile(r'<meta name="penta-moments" content="([^"]*)"')


def gz(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=6))


def served(data: bytes) -> int:
    """A static file's size as WhiteNoise sends it (the .gz collectstatic made with zopfli, of the file as
    collectstatic minified it)."""
    return len(gzipped(data))


def static_size(url: str) -> int:
    assert url.startswith("/static/"), f"an asset from elsewhere: {url}"
    path = finders.find(url.removeprefix("/static/"))
    assert path, f"{url} is referenced but not found"
    with open(path, "rb") as f:
        return served(minified(url, f.read()))


def weigh(html: str) -> dict[str, int]:
    """Compressed bytes of the page and of each asset it loads before it is shown, by name."""
    urls = ICON.findall(html) + ASSET.findall(html)
    return {"HTML": gz(html.encode())} | {url: static_size(url) for url in urls}


def later(html: str, meta: re.Pattern = LATER) -> dict[str, int]:
    """Compressed bytes of each script penta.js fetches after the load (or, `ON_DEMAND`, when needed)."""
    urls = meta.search(html)
    return {url: static_size(url) for url in (urls.group(1).split() if urls else [])}


def report(what: str, html: str) -> tuple[int, int]:
    """Prints and returns the bytes of the first seconds, and of the scripts fetched on demand."""
    first = weigh(html) | later(html)
    on_demand = later(html, ON_DEMAND)
    total, total_on_demand = sum(first.values()), sum(on_demand.values())
    lines = "\n".join(f"  {size / 1024:6.1f} KB  {name}" for name, size in first.items())
    lines_on_demand = "\n".join(f"  {size / 1024:6.1f} KB  {name}" for name, size in on_demand.items())
    print(
        f"\n{what}: a first visit's first seconds {total / 1024:.1f} KB gzipped (aim {AIM / 1024:.0f} KB)"
        f"\n{lines}\n  when first needed: {total_on_demand / 1024:.1f} KB\n{lines_on_demand}"
    )
    return total, total_on_demand


def solo_page_mid_turn(client: Client) -> str:
    response = client.post("/games/solo/")
    url = response["Location"]
    game_id = int(url.strip("/").split("/")[-1])
    client.post(f"{url}roll/", {"turn": 1, "roll": 0})
    assert Game.objects.get(pk=game_id).turns.get(number=1).rolls_used == 1
    return client.get(url).content.decode()


@pytest.mark.django_db
def test_a_guest_s_solo_game_page_fits_the_budget(client):
    first, on_demand = report("solo game, a guest, mid-turn", solo_page_mid_turn(client))
    assert first <= AIM_SOLO_TODAY
    assert on_demand <= ON_DEMAND_BUDGET


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
    first, on_demand = report("live game, 4 seats, logged in, mid-turn", html)
    assert first <= AIM_LIVE_TODAY
    assert on_demand <= ON_DEMAND_BUDGET
    assert "js/live.js" in LATER.search(html).group(1)  # its socket connects once the page is shown
    assert "moments.js" not in LATER.search(html).group(1)


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
