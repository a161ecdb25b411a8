"""A round's seed deals every entrant's dice: it is shown nowhere before the round closes (the pages,
the game's and the tournament's sockets, the JSON export, verify_game, the review's optimal replay,
the puzzles), and everywhere after, when anyone who may see the tournament may check every entrant's
game."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.management import CommandError, call_command

from analysis import store as analysis_store
from dicegame.play import sweeper as game_clock
from dicegame.strategy import Strategy
from penta.asgi import application
from puzzles import positions as P
from puzzles import services as puzzles
from puzzles.models import PuzzleSource
from tests.support import ORIGIN
from tests.support.clock import Clock
from tests.support.factories import UserFactory, client_for
from tests.support.sockets import cookie_header, open_game_socket
from tests.support.tournaments import play_round, play_turn, round_of, tournament_of
from tournaments import pushes
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

START = dt.datetime(2026, 6, 10, 10, 0, tzinfo=dt.UTC)


@pytest.fixture
def clock(monkeypatch):
    return Clock(monkeypatch, START)


def test_nothing_shows_a_rounds_seed_before_it_closes_and_everything_after(clock, capsys):
    ann, ben, cas = (UserFactory(username=n) for n in ("ann", "ben", "cas"))
    t = tournament_of(ann, ben, rounds=2, access=Tournament.Access.PUBLIC)
    game = play_round(t, ann, holds=((1, 2), (3,)))
    r1 = round_of(t, 1)
    seed = r1.seed
    assert game.seed == seed
    client = client_for(ann)
    pages = [
        f"/games/{game.pk}/",
        f"/games/{game.pk}/review/",
        f"/games/{game.pk}/review/?line=optimal&step=3",
        f"/games/{game.pk}/export.json",
        f"/tournaments/{t.pk}/",
        "/tournaments/",
        "/",
        "/games/",
        f"/players/{ann.username}/",
    ]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        assert seed not in response.content.decode(), url
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "data-seed-secret-until" in page and "This is a tournament round" in page
    assert f'data-tournament-link="{t.pk}"' in page
    review = client.get(f"/games/{game.pk}/review/?line=optimal&step=3").content.decode()
    assert "data-optimal-turn" not in review and "data-optimal-secret-until" in review
    export = json.loads(client.get(f"/games/{game.pk}/export.json").content)
    assert export["seed"] is None and export["seed_commitment"] == r1.commitment
    assert export["shared_dice"] == {
        "recipe_game": f"t{t.pk}-r1",
        "commitment": r1.commitment,
        "seed_revealed_at": r1.closes_at.isoformat(),
    }
    # Not even the optimal line's total (the round's par), nor the luck: the round's results are secret.
    seat = export["analysis"]["seats"]["1"]
    assert "optimal" not in seat and "luck" not in seat and "optimal_total" not in seat["summary"]
    assert export["results_secret_until"] == r1.closes_at.isoformat()
    with pytest.raises(CommandError, match=r"shared dice .*revealed .*when their window ends"):
        call_command("verify_game", str(game.pk))
    # Nobody else sees an entrant's game while the round is open: not even an entrant of the same round.
    for other in (ben, cas):
        assert client_for(other).get(f"/games/{game.pk}/").status_code == 404
        assert client_for(other).get(f"/games/{game.pk}/review/").status_code == 404
        assert client_for(other).get(f"/games/{game.pk}/export.json").status_code == 404
    # The puzzles wait too: a position would show the round's dice.
    analysis_store.analysis_for(game)
    assert puzzles.add_game_puzzles(game.pk) == 0 and not PuzzleSource.objects.exists()

    clock.set(r1.closes_at)
    game_clock.sweep(force=True)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert f'<code class="hash" data-seed>{seed}</code>' in page
    export = json.loads(client.get(f"/games/{game.pk}/export.json").content)
    assert export["seed"] == seed and len(export["analysis"]["seats"]["1"]["optimal"]["turns"]) == 13
    review = client.get(f"/games/{game.pk}/review/?line=optimal&step=3").content.decode()
    assert "data-optimal-turn" in review and "data-optimal-secret-until" not in review
    tournament_page = client_for(cas).get(f"/tournaments/{t.pk}/").content.decode()
    assert f"data-seed>{seed}<" in tournament_page
    call_command("verify_game", str(game.pk))
    assert "all" in capsys.readouterr().out
    # Anyone who may see the tournament may check every entrant's game now (the best game's link).
    assert f'href="/games/{game.pk}/review/" data-best-review' in tournament_page
    for url in (f"/games/{game.pk}/", f"/games/{game.pk}/review/", f"/games/{game.pk}/export.json"):
        assert client_for(cas).get(url).status_code == 200, url
    candidates = P.puzzle_candidates(analysis_store.analysis_for(game).data, [0], Strategy.shared())
    candidates = list(candidates)
    assert candidates and puzzles.add_game_puzzles(game.pk) == len(candidates)


def test_a_tournament_by_invitation_keeps_its_games_to_those_who_see_it(clock):
    ann, ben, cas = (UserFactory(username=n) for n in ("ann", "ben", "cas"))
    t = tournament_of(ann, ben, rounds=1)
    game = play_round(t, ann)
    clock.set(round_of(t, 1).closes_at)
    game_clock.sweep(force=True)
    assert client_for(ben).get(f"/games/{game.pk}/review/").status_code == 200
    assert client_for(cas).get(f"/games/{game.pk}/review/").status_code == 404


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_no_socket_carries_a_rounds_seed_before_it_closes():
    @database_sync_to_async
    def setup():
        ann, ben = UserFactory(username="ann"), UserFactory(username="ben")
        t = tournament_of(ann, ben, access=Tournament.Access.PUBLIC)
        game = play_round(t, ann, turns=12)
        return ann, t, game

    ann, t, game = await setup()
    seed = game.seed
    socket, ok, _code = await open_game_socket(game.pk, ann)
    assert ok
    board = await socket.receive_from(timeout=5)
    assert seed not in board

    watcher = WebsocketCommunicator(
        application, f"/ws/tournaments/{t.pk}/", headers=[ORIGIN, await cookie_header(ann)]
    )
    assert (await watcher.connect(timeout=5))[0]

    @database_sync_to_async
    def finish():
        play_turn(game.pk, ann)
        pushes.push_due()

    await finish()
    await socket.send_to(text_data=json.dumps({"action": "sync"}))
    frame = await socket.receive_from(timeout=5)
    assert seed not in frame
    pushed = await watcher.receive_from(timeout=5)
    assert 'id="standings"' in pushed and seed not in pushed
    await socket.disconnect()
    await watcher.disconnect()
