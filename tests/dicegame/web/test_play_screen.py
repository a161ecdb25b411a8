"""The play screen's server side (issue 22): a box the server wrote for the player, said and marked, with
the moments of that path; the box buttons' names with their points; the status line; pass and play's
new game and winner; a spectator's end page that follows the table into the rematch; the proof of the
dice in a player's words. (The same in Chromium: tests/browser/test_play_screen.py.)"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import transaction
from django.test import Client
from django.utils import timezone

from dicegame import play
from dicegame.models import Game, Player, Turn
from dicegame.play import local, rooms
from dicegame.play.clock import settle_locked
from dicegame.play.local import SeatSpec
from dicegame.screen.state import board_state
from dicegame.screen.view import view_key
from live import pushes
from tests.support import HX
from tests.support.factories import actor, client_for
from tests.support.games import current, mark_finished, rigged_turn, two_player_game

pytestmark = pytest.mark.django_db


def moments_region(html: str) -> str:
    return re.search(r'<div id="moments".*?</div>', html, re.S).group(0)


def fives_after_the_third_roll(user_actor):
    """A solo game after its third roll, five 5s on the dice and the auto-commit due."""
    game = play.game_create_solo(actor=user_actor)
    for n in range(3):
        play.turn_roll(game_id=game.pk, actor=user_actor, turn=1, roll=n)
    Turn.objects.filter(game=game, number=1).update(
        dice=[5] * 5, auto_commit_at=timezone.now() - timedelta(seconds=1)
    )
    return game


# -- item 4: written for you --------------------------------------------------------------------------


def test_the_tick_after_the_clock_wrote_still_tells_and_cheers(user, user_actor, strategy):
    game = fives_after_the_third_roll(user_actor)
    # The clock process writes the roll before the page's tick comes: a solo game has no push.
    assert play.games_settle_overdue() == 1
    html = client_for(user).post(f"/games/{game.pk}/tick/?turn=1", **HX).content.decode()
    region = moments_region(html)
    assert 'data-moment="penta-1" data-kind="penta"' in region  # the moment of that path, not lost
    assert 'data-moment="written-1" data-kind="written">Written for you: 50 in Penta<' in region
    assert '<p class="written-note" data-written-note>Written for you: 50 in Penta</p>' in html
    assert re.search(
        r'data-box="PENTA".*?<td class="filled written-for" data-score="50" data-written-for>', html, re.S
    )
    # A tick that showed a later turn is told nothing again.
    html = client_for(user).post(f"/games/{game.pk}/tick/?turn=2", **HX).content.decode()
    assert "data-moment" not in moments_region(html) and "data-written-note" not in html


def test_the_tick_that_writes_tells_it_too(user, user_actor, strategy):
    game = fives_after_the_third_roll(user_actor)
    html = client_for(user).post(f"/games/{game.pk}/tick/?turn=1", **HX).content.decode()
    assert Turn.objects.get(game=game, number=1).auto_committed
    assert "Written for you: 50 in Penta" in moments_region(html)


def test_a_tap_the_auto_commit_beat_is_refused_with_what_was_written(user, user_actor, strategy):
    game = fives_after_the_third_roll(user_actor)
    # The player taps Penta as the countdown ends: the overdue auto-commit comes first.
    response = client_for(user).post(f"/games/{game.pk}/choose/CHANCE/", {"turn": 1, "roll": 3}, **HX)
    assert response.status_code == 409
    html = response.content.decode()
    assert "The game moved on" in html
    assert "Written for you: 50 in Penta" in html and 'data-moment="penta-1"' in html


def test_the_upper_bonus_reached_by_the_clock_is_celebrated(user, user_actor, strategy):
    game = fives_after_the_third_roll(user_actor)
    upper = {"ONES": 3, "TWOS": 6, "THREES": 9, "FOURS": 12, "SIXES": 18, "PENTA": 0}
    Player.objects.filter(game=game).update(boxes=upper)
    Turn.objects.filter(game=game, number=1).update(dice=[5, 5, 5, 5, 1])
    play.games_settle_overdue()
    written = Turn.objects.get(game=game, number=1)
    assert written.box == "FIVES" and written.points == 20
    html = client_for(user).post(f"/games/{game.pk}/tick/?turn=1", **HX).content.decode()
    assert 'data-moment="upper-bonus-1"' in moments_region(html)


def test_a_turn_the_timer_ran_out_on_is_written_for_its_player_on_every_screen(strategy):
    game, host, friend = two_player_game(turn_seconds=30)
    turn = current(game.pk)
    Turn.objects.filter(pk=turn.pk).update(deadline_at=timezone.now() - timedelta(seconds=1))
    # The clock's own step, on the game object it then pushes (what `live.pushes` renders from).
    with transaction.atomic():
        with_lock = Game.objects.select_for_update().get(pk=game.pk)
        settle_locked(with_lock)
    [(written, _reached)] = with_lock.written
    assert written.stand_in
    state = board_state(game=with_lock)
    seats = {p.user_id: p for p in state.players}
    mine = pushes.render_board(state, seats[host.pk], "en")
    theirs = pushes.render_board(state, seats[friend.pk], "en")
    watched = pushes.render_board(state, None, "en")
    assert f"Written for you: {written.points} in" in mine
    assert "Written for you" not in theirs and f"Written for hana: {written.points} in" in theirs
    assert "Written for hana" in watched
    # Rendered once per kind of viewer: the seat it was written for is a kind of its own.
    assert view_key(state, seats[host.pk])[-1] is True
    assert view_key(state, seats[friend.pk])[-1] is False


def test_written_for_you_in_dutch(user, user_actor, strategy):
    game = fives_after_the_third_roll(user_actor)
    play.games_settle_overdue()
    client = client_for(user)
    client.cookies["django_language"] = "nl"
    html = client.post(f"/games/{game.pk}/tick/?turn=1", HTTP_ACCEPT_LANGUAGE="nl", **HX).content.decode()
    assert "Voor je ingevuld: 50 bij Penta" in html


# -- item 6: the box buttons say their points --------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "option", "written"),
    [("en", "Ones, 3 points", "Ones, written 3"), ("nl", "Enen, 3 punten", "Enen, 3 ingevuld")],
)
def test_a_box_button_is_named_with_its_points(user, language, option, written):
    game = rigged_turn(user, [1, 1, 1, 2, 3])
    client = client_for(user)
    client.cookies["django_language"] = language
    html = client.get(f"/games/{game.pk}/").content.decode()
    assert (
        f'data-box="ONES" data-action="box-ONES" aria-keyshortcuts="a" aria-pressed="false" '
        f'aria-label="{option}"'
    ) in html
    client.post(f"/games/{game.pk}/choose/ONES/", {"turn": 1, "roll": 1}, **HX)
    html = client.post(f"/games/{game.pk}/confirm/", {"turn": 1, "roll": 1}, **HX).content.decode()
    assert f'aria-label="{written}"' in html
    # A box neither scorable now nor written: its name alone.
    assert 'data-action="box-TWOS" aria-keyshortcuts="b" aria-pressed="false" aria-label="Twos"' in html or (
        language == "nl" and 'aria-label="Tweeën"' in html
    )


def test_one_point_is_a_point(user):
    game = rigged_turn(user, [1, 2, 3, 4, 6])
    html = client_for(user).get(f"/games/{game.pk}/").content.decode()
    assert 'aria-label="Ones, 1 point"' in html and 'aria-label="Large straight, 0 points"' in html


# -- item 13: the status line says what happens --------------------------------------------------------


def test_the_waiting_seat_is_told_whose_turn_it_is():
    game, host, friend = two_player_game()
    waiting = client_for(friend).get(f"/games/{game.pk}/").content.decode()
    assert '<p class="hint" data-waiting-for>hana\'s turn.</p>' in waiting and "Roll the dice" not in waiting
    moving = client_for(host).get(f"/games/{game.pk}/").content.decode()
    assert "Roll the dice to start your turn" in moving and "s turn." not in moving


def test_the_roll_hint_names_its_key_apart(user):
    game = play.game_create_solo(actor=actor(user))
    html = client_for(user).get(f"/games/{game.pk}/").content.decode()
    # The key is a part of its own, which a touch screen leaves out (penta.css).
    assert (
        '<p class="hint">Roll the dice to start your turn<span class="key-hint"> (Space)</span></p>' in html
    )


def test_the_fair_dice_proof_is_one_click_away_in_plain_words(user_client, user_actor):
    game = play.game_create_solo(actor=user_actor)
    html = user_client.get(f"/games/{game.pk}/").content.decode()
    proof = re.search(r'<details class="fair-dice" data-fair-dice>.*?</details>', html, re.S).group(0)
    assert "<summary>Fair dice</summary>" in proof
    assert f'<code class="hash" data-commitment>{game.seed_commitment}</code>' in proof
    play.game_resign(game_id=game.pk, actor=user_actor)
    html = user_client.get(f"/games/{game.pk}/").content.decode()
    assert "give the seed to any SHA-256 tool" in html
    assert "manage.py" not in html and "README" not in html


# -- item 7: pass and play's end -----------------------------------------------------------------------


def finished_local(user) -> Game:
    game = local.local_game_create(
        actor=actor(user), seats=[SeatSpec(name="Anna"), SeatSpec(name="Ben"), SeatSpec(strength="hard")]
    )
    for seat, (total, rank) in enumerate([(200, 1), (200, 1), (150, 3)]):
        Player.objects.filter(game=game, seat=seat).update(total=total, rank=rank)
    mark_finished(game)
    return game


def test_the_end_of_a_local_game_names_the_winners_and_offers_the_same_table(user):
    game = finished_local(user)
    html = client_for(user).get(f"/games/{game.pk}/").content.decode()
    assert '<p class="result-place" data-winner>A shared win: Anna, Ben</p>' in html
    assert 'href="/games/local/?name_1=Anna&amp;name_2=Ben&amp;computer_1=hard" data-play-again' in html
    form = client_for(user).get("/games/local/?name_1=Anna&name_2=Ben&computer_1=hard").content.decode()
    assert 'name="name_1" value="Anna"' in form and 'name="name_2" value="Ben"' in form
    assert '<option value="hard" selected>' in form


def test_again_query_keeps_names_and_strengths_in_their_seats(user):
    game = local.local_game_create(
        actor=actor(user),
        seats=[
            SeatSpec(name="Zoë & co"),
            SeatSpec(name="Bo"),
            SeatSpec(strength="easy"),
            SeatSpec(strength="hard"),
        ],
    )
    query = local.again_query(list(game.players.order_by("seat")))
    assert query == "name_1=Zo%C3%AB+%26+co&name_2=Bo&computer_1=easy&computer_2=hard"


# -- item 12: a spectator follows the table into the rematch -------------------------------------------


def test_a_spectator_s_end_page_waits_for_the_rematch_and_then_points_to_it():
    game, host, friend = two_player_game()
    mark_finished(game)
    watching = f"/games/{game.pk}/?t={game.invite_token}"  # a visitor without an account, by the link
    page = Client().get(watching).content.decode()
    assert "data-rematch-watch" in page and f'ws-connect="/ws/games/{game.pk}/?t=' in page
    rooms.rematch_accept(game_id=game.pk, actor=actor(host))
    rematch = rooms.rematch_accept(game_id=game.pk, actor=actor(friend))
    page = Client().get(watching).content.decode()
    link = f'href="/games/{rematch.pk}/?t={rematch.invite_token}" data-watch-rematch'
    assert link in page and "ws-connect" not in page
    # The marker pushed to every open page names the game for the players, and for spectators with
    # its own link (which the one who came by the old link may use).
    watch_url = f"/games/{rematch.pk}/?t={rematch.invite_token}"
    assert f'data-next-game="/games/{rematch.pk}/" data-next-watch="{watch_url}"' in page
    assert Client().get(f"/games/{rematch.pk}/?t={rematch.invite_token}").status_code == 200


def test_a_player_s_end_page_is_as_before():
    game, host, friend = two_player_game()
    mark_finished(game)
    page = client_for(host).get(f"/games/{game.pk}/").content.decode()
    assert "data-rematch-watch" not in page and ">Rematch</button>" in page
