"""The game screen over HTTP: pages, htmx partials, refusals with messages, and privacy."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from dicegame import play
from dicegame.actors import GUEST_SESSION_KEY, Actor
from dicegame.models import Game, Turn
from dicegame.rules.scoring import Box
from dicegame.strategy import computer
from tests.support import HX
from tests.support.factories import PlayerFactory, TurnFactory, UserFactory
from tests.support.games import current, play_whole_game, snapshot

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(user_actor):
    return play.game_create_solo(actor=user_actor)


def post_action(client, game, action, *, turn=None, roll=None, htmx=True, **extra):
    t = current(game.pk)
    data = {"turn": t.number if turn is None else turn, "roll": t.rolls_used if roll is None else roll}
    return client.post(f"/games/{game.pk}/{action}/", data, **(HX if htmx else {}), **extra)


def test_home_offers_play_solo(client):
    response = client.get("/")
    assert response.status_code == 200
    assert b"Play solo" in response.content


def test_play_solo_as_a_guest_starts_a_game_at_once(client):
    response = client.post("/games/solo/")
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/"
    assert game.players.get().guest_key == client.session[GUEST_SESSION_KEY]
    page = client.get(response["Location"])
    assert page.status_code == 200
    assert game.seed_commitment.encode() in page.content
    assert game.seed.encode() not in page.content  # secret until the end


def test_game_page_has_the_accessible_controls(user_client, game):
    html = user_client.get(f"/games/{game.pk}/").content.decode()
    assert len(re.findall(r'<button[^>]*data-die="[1-5]"', html)) == 5
    assert re.search(r'<button[^>]*data-action="roll"[^>]*>\s*Roll', html)
    for name in ("Ones", "Three of a kind", "Full house", "Large straight", "Penta"):
        assert re.search(rf'<button[^>]*data-box="[A-Z_]+"[^>]*><span class="box-full">{name}</span>', html)
    assert ">Confirm turn</button>" in html
    assert 'data-total="0"' in html


def test_htmx_roll_answers_with_the_regions_out_of_band(user_client, game):
    response = post_action(user_client, game, "roll")
    assert response.status_code == 200
    html = response.content.decode()
    for region in ("dice-tray", "scoresheet", "turn-status", "messages"):
        # The game's regions are morphed (focus and a pending tap survive); the message area is replaced.
        swap = "true" if region == "messages" else "morph"
        assert re.search(rf'id="{region}"[^>]*hx-swap-oob="{swap}"', html), region
    t = current(game.pk)
    for index, value in enumerate(t.dice, start=1):
        assert f'data-die="{index}" data-value="{value}"' in html
    assert "<html" not in html


def test_held_marks_go_after_the_last_roll(user_client, game):
    post_action(user_client, game, "roll")
    user_client.post(f"/games/{game.pk}/hold/2/", {"turn": 1, "roll": 1}, **HX)
    html = user_client.post(f"/games/{game.pk}/roll/", {"turn": 1, "roll": 1}, **HX).content.decode()
    assert re.search(r'class="die held[^"]*" data-die="2"', html) and ">held</span>" in html
    html = user_client.post(f"/games/{game.pk}/roll/", {"turn": 1, "roll": 2}, **HX).content.decode()
    # Three rolls: nothing is left to roll, so no die is shown held (the label stayed before).
    assert current(game.pk).held[1] and ">held</span>" not in html and 'aria-pressed="true"' not in html


def test_plain_form_post_redirects_back_to_the_game(user_client, game):
    response = post_action(user_client, game, "roll", htmx=False)
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/"
    assert current(game.pk).rolls_used == 1


def test_hold_choose_and_confirm_through_htmx(user_client, game):
    post_action(user_client, game, "roll")
    response = user_client.post(f"/games/{game.pk}/hold/2/", {"turn": 1, "roll": 1}, **HX)
    assert 'data-die="2"' in response.content.decode()
    assert current(game.pk).held == [False, True, False, False, False]
    response = user_client.post(f"/games/{game.pk}/choose/CHANCE/", {"turn": 1, "roll": 1}, **HX)
    assert "Chosen: Chance" in response.content.decode()
    response = post_action(user_client, game, "confirm")
    assert response.status_code == 200
    done = Turn.objects.get(game=game, number=1)
    assert done.box == "CHANCE" and done.points == sum(done.dice)
    # The written points stand in the seat's cell of the Chance row, and the box can't be chosen again.
    row = re.search(
        r'<tr class="box-row[^"]*"><th scope="row"><button[^>]*data-box="CHANCE"[^>]*>.*?</tr>',
        response.content.decode(),
        re.S,
    ).group(0)
    assert f'<td class="filled" data-score="{done.points}">{done.points}</td>' in row
    assert re.search(r'data-box="CHANCE"[^>]*disabled', row)


@pytest.mark.parametrize("htmx", [True, False])
def test_refusal_answers_409_with_the_message_and_changes_nothing(user_client, game, htmx):
    for _ in range(3):
        post_action(user_client, game, "roll")
    before = snapshot(game.pk)
    response = post_action(user_client, game, "roll", htmx=htmx)
    assert response.status_code == 409
    html = response.content.decode()
    assert re.search(r'id="messages".*role="alert">You have rolled three times', html, re.S)
    assert snapshot(game.pk) == before


def test_confirm_without_a_box_is_refused_with_a_message(user_client, game):
    post_action(user_client, game, "roll")
    before = snapshot(game.pk)
    response = post_action(user_client, game, "confirm")
    assert response.status_code == 409
    assert "Choose a box before you confirm the turn." in response.content.decode()
    assert snapshot(game.pk) == before


def test_forced_joker_refusal_names_the_allowed_box(user):
    client = Client()
    client.force_login(user)
    player = PlayerFactory(user=user, boxes={"PENTA": 50})
    TurnFactory(
        player=player, number=2, round=2, dice=[4] * 5, rolls=[{"dice": [4] * 5, "held": [False] * 5}]
    )
    response = client.post(f"/games/{player.game_id}/choose/FULL_HOUSE/", {"turn": 2, "roll": 1}, **HX)
    assert response.status_code == 409
    assert "it may go in: Fours" in response.content.decode()


@pytest.mark.parametrize(
    ("data", "url_tail"),
    [
        ({"turn": "x", "roll": 0}, "roll/"),
        ({"roll": 0}, "roll/"),
        ({"turn": 1, "roll": ""}, "confirm/"),
        ({"turn": 1, "roll": 1}, "choose/NOPE/"),
        ({"turn": 1, "roll": 1}, "hold/9/"),
    ],
)
def test_malformed_requests_get_400_and_a_message(user_client, game, data, url_tail):
    post_action(user_client, game, "roll")
    before = snapshot(game.pk)
    response = user_client.post(f"/games/{game.pk}/{url_tail}", data, **HX)
    assert response.status_code == 400
    assert 'role="alert"' in response.content.decode()
    assert snapshot(game.pk) == before


def test_someone_elses_game_is_404_and_leaks_nothing(game):
    stranger = Client()
    stranger.force_login(UserFactory())
    before = snapshot(game.pk)
    assert stranger.get(f"/games/{game.pk}/").status_code == 404
    for action in ("roll", "confirm", "tick", "hold/1", "choose/CHANCE"):
        response = stranger.post(f"/games/{game.pk}/{action}/", {"turn": 1, "roll": 0}, **HX)
        assert response.status_code == 404, action
        html = response.content.decode()
        assert "There is no such game." in html
        assert game.seed_commitment not in html
    assert snapshot(game.pk) == before
    # The same answer as for a game that does not exist at all.
    assert stranger.post("/games/987654/roll/", {"turn": 1, "roll": 0}, **HX).status_code == 404


def test_missing_csrf_token_is_refused_with_a_message(user, game):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    before = snapshot(game.pk)
    response = client.post(f"/games/{game.pk}/roll/", {"turn": 1, "roll": 0}, **HX)
    assert response.status_code == 403
    assert "security token" in response.content.decode()
    assert snapshot(game.pk) == before


def test_csrf_token_in_the_htmx_header_is_accepted(user, game):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    page = client.get(f"/games/{game.pk}/").content.decode()
    token = re.search(r'"X-CSRFToken": "([^"]+)"', page).group(1)
    response = client.post(f"/games/{game.pk}/roll/", {"turn": 1, "roll": 0}, HTTP_X_CSRFTOKEN=token, **HX)
    assert response.status_code == 200


def test_actions_need_post(user_client, game):
    assert user_client.get(f"/games/{game.pk}/roll/").status_code == 405


def test_third_roll_shows_the_countdown_and_tick_applies_it_when_due(user_client, game):
    for _ in range(3):
        response = post_action(user_client, game, "roll")
    assert "data-countdown-ms" in response.content.decode()
    t = current(game.pk)
    response = user_client.post(f"/games/{game.pk}/tick/", **HX)  # too early: nothing happens
    assert current(game.pk).pk == t.pk
    Turn.objects.filter(pk=t.pk).update(auto_commit_at=timezone.now() - timedelta(seconds=1))
    response = user_client.post(f"/games/{game.pk}/tick/", **HX)
    assert response.status_code == 200
    assert Turn.objects.get(pk=t.pk).auto_committed


def test_overdue_turn_is_applied_when_the_page_is_opened(user_client, game):
    for _ in range(3):
        post_action(user_client, game, "roll")
    Turn.objects.filter(game=game).update(auto_commit_at=timezone.now() - timedelta(seconds=5))
    user_client.get(f"/games/{game.pk}/")
    assert Turn.objects.get(game=game, number=1).auto_committed


def test_sacrifice_message(user):
    client = Client()
    client.force_login(user)
    filled = {b.name: 0 for b in Box if b not in (Box.SIXES, Box.LARGE_STRAIGHT)}
    player = PlayerFactory(user=user, boxes=filled)
    TurnFactory(
        player=player,
        number=12,
        round=12,
        dice=[1, 1, 3, 4, 5],
        rolls=[{"dice": [1, 1, 3, 4, 5], "held": [False] * 5}],
    )
    html = client.get(f"/games/{player.game_id}/").content.decode()
    assert "No open box scores points: you must sacrifice one" in html


def test_finished_game_page_shows_result_log_and_seed(user_client, user_actor, game):
    play_whole_game(game, user_actor)
    game.refresh_from_db()
    html = user_client.get(f"/games/{game.pk}/").content.decode()
    assert "Game over" in html
    assert f"data-seed>{game.seed}<" in html
    assert len(re.findall(r'<tr data-turn="\d+"', html)) == 13
    total = game.players.get().total
    assert f'data-final-total="{total}"' in html


def test_htmx_action_that_ends_the_game_reloads_the_page(user_client, user_actor, game):
    for _ in range(12):
        t = current(game.pk)
        play.turn_roll(game_id=game.pk, actor=user_actor, turn=t.number, roll=0)
        t = current(game.pk)
        box = computer.auto_commit_box(t.player.sheet, tuple(t.dice))
        play.turn_choose_box(game_id=game.pk, actor=user_actor, turn=t.number, roll=1, box=box.name)
        play.turn_confirm(game_id=game.pk, actor=user_actor, turn=t.number, roll=1)
    post_action(user_client, game, "roll")
    t = current(game.pk)
    box = t.player.sheet.open_boxes[0]
    post_action(user_client, game, f"choose/{box.name}")
    response = post_action(user_client, game, "confirm")
    assert response["HX-Redirect"] == f"/games/{game.pk}/"


def test_history_lists_my_games_newest_first_and_paginates(user, user_client, user_actor, settings):
    settings.PENTA_HISTORY_PAGE_SIZE = 5
    games = [play.game_create_solo(actor=user_actor) for _ in range(7)]
    play.game_create_solo(actor=Actor(user_id=UserFactory().pk))  # not mine
    html = user_client.get("/games/").content.decode()
    listed = [int(g) for g in re.findall(r'<tr data-game="(\d+)"', html)]
    assert listed == [g.pk for g in reversed(games)][:5]
    page2 = user_client.get("/games/?page=2").content.decode()
    assert [int(g) for g in re.findall(r'<tr data-game="(\d+)"', page2)] == [games[1].pk, games[0].pk]
    for bad in ("abc", "-1", "999", "1.5", ""):
        assert user_client.get(f"/games/?page={bad}").status_code == 200


def test_history_shows_total_and_result(user_client, user_actor, game):
    play_whole_game(game, user_actor)
    html = user_client.get("/games/").content.decode()
    total = game.players.get().total
    assert f'data-total="{total}"' in html and "Finished" in html


def test_pages_have_a_csp_without_inline_script(client, user_client, game):
    for c, url in (
        (user_client, "/"),
        (user_client, f"/games/{game.pk}/"),
        (user_client, "/games/"),
        (client, "/accounts/login/"),
    ):
        response = c.get(url)
        csp = response["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp
        scripts = re.findall(r"<script([^>]*)>", response.content.decode())
        assert scripts and all("src=" in attrs for attrs in scripts), url
        assert not re.search(r"\son[a-z]+=", response.content.decode()), url


def test_dutch_screen(client):
    client.post("/games/solo/")
    game = Game.objects.get()
    html = client.get(f"/games/{game.pk}/", HTTP_ACCEPT_LANGUAGE="nl").content.decode()
    for name in ("Enen", "Tweeën", "Driekind", "Carré", "Kleine straat", "Grote straat", "Beurt bevestigen"):
        assert name in html, name
    assert 'lang="nl"' in html


def test_healthz(client):
    assert client.get("/healthz/").content == b"ok"
