"""Resigning a solo game or one against the computer, and leaving a game against friends."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from dicegame import play
from dicegame.actors import Actor
from dicegame.errors import GameActionError, GameNotFound
from dicegame.models import Game, Player, Turn
from dicegame.play import local, rooms
from dicegame.play.local import SeatSpec
from dicegame.rules.scoring import Box
from tests.dicegame.play.test_rooms import actor, client_for
from tests.support import HX
from tests.support.factories import UserFactory
from tests.support.games import place, roll, snapshot, started_two_player_game

pytestmark = pytest.mark.django_db


def test_resign_a_solo_game_finishes_it_with_the_written_total(user, user_actor):
    game = play.game_create_solo(actor=user_actor)
    roll(game, user_actor)
    place(game, user_actor, Box.CHANCE)
    roll(game, user_actor)  # a turn in play, never written
    version = Game.objects.get(pk=game.pk).version
    play.game_resign(game_id=game.pk, actor=user_actor)
    game.refresh_from_db()
    seat = game.players.get()
    assert game.is_finished and game.finished_at is not None and game.version > version
    assert seat.left_at is not None and seat.rank == 1
    assert list(seat.boxes) == ["CHANCE"] and seat.total == seat.boxes["CHANCE"]
    # The turn in play is dropped: the log holds what was written.
    assert list(Turn.objects.filter(game=game).values_list("box", flat=True)) == ["CHANCE"]


def test_resign_against_the_computer_ranks_the_person_last(user, user_actor):
    game = play.game_create_vs_computer(actor=user_actor, strengths=["easy", "hard"])
    play.game_resign(game_id=game.pk, actor=user_actor)
    players = {p.seat: p for p in Player.objects.filter(game=game)}
    assert players[0].left_at is not None and players[0].rank == 3
    # The computer players, both at 0, share first place.
    assert players[1].rank == players[2].rank == 1
    assert Game.objects.get(pk=game.pk).is_finished


def test_resign_refusals_change_nothing(user, user_actor):
    game = play.game_create_solo(actor=user_actor)
    stranger = Actor(user_id=UserFactory().pk, name="x")
    before = snapshot(game.pk)
    with pytest.raises(GameNotFound):
        play.game_resign(game_id=game.pk, actor=stranger)
    assert snapshot(game.pk) == before
    play.game_resign(game_id=game.pk, actor=user_actor)
    before = snapshot(game.pk)
    with pytest.raises(GameActionError, match="This game is over"):
        play.game_resign(game_id=game.pk, actor=user_actor)
    assert snapshot(game.pk) == before


def test_resign_through_the_page(user, user_client):
    page = user_client.get("/")
    assert page.status_code == 200
    response = user_client.post("/games/solo/")
    game = Game.objects.get()
    html = user_client.get(f"/games/{game.pk}/").content.decode()
    # Asked first: a <details> with the confirm button inside, a plain form.
    assert "data-resign" in html and f'action="/games/{game.pk}/resign/"' in html
    response = user_client.post(f"/games/{game.pk}/resign/", **HX)
    assert response.status_code == 200 and response.headers["HX-Redirect"] == f"/games/{game.pk}/"
    html = user_client.get(f"/games/{game.pk}/").content.decode()
    assert "You resigned this game" in html and "resign-game" not in html
    # A second resign is refused with a message.
    response = user_client.post(f"/games/{game.pk}/resign/", **HX)
    assert response.status_code == 409 and "This game is over." in response.content.decode()


def test_friends_games_are_left_not_resigned(host, friend):
    game = started_two_player_game(host, friend)
    with pytest.raises(GameActionError, match="leave the game instead") as exc:
        play.game_resign(game_id=game.pk, actor=actor(host))
    assert exc.value.status == 400


# -- leaving a game against friends ------------------------------------------------------------------


def test_leave_hands_the_seat_to_the_computer_for_good(host, friend, settings):
    game = started_two_player_game(host, friend)
    version = Game.objects.get(pk=game.pk).version
    rooms.seat_leave(game_id=game.pk, actor=actor(host))  # on their own turn
    seat = Player.objects.get(game=game, user=host)
    assert seat.left_at is not None and seat.stand_in
    turn = Turn.objects.get(game=game, completed_at__isnull=True)
    assert turn.player_id == seat.pk and turn.stand_in and turn.next_step_at is not None
    assert turn.deadline_at is None
    assert Game.objects.get(pk=game.pk).version > version
    # The seat can never be taken back.
    before = snapshot(game.pk)
    with pytest.raises(GameActionError, match="can't be taken back") as exc:
        rooms.seat_take_back(game_id=game.pk, actor=actor(host))
    assert exc.value.status == 403
    # Leaving twice is refused.
    with pytest.raises(GameActionError, match="already left"):
        rooms.seat_leave(game_id=game.pk, actor=actor(host))
    assert snapshot(game.pk) == before


def test_the_table_finishes_and_the_leaver_ranks_last(host, friend):
    game = started_two_player_game(host, friend)
    rooms.seat_leave(game_id=game.pk, actor=actor(friend))  # not their turn
    friend_seat = Player.objects.get(game=game, user=friend)
    assert friend_seat.stand_in and friend_seat.left_at
    # Play the host's turns (the computer plays the friend's at once when hurried by the clock).
    while True:
        game.refresh_from_db()
        if game.is_finished:
            break
        t = Turn.objects.filter(game=game, completed_at__isnull=True).select_related("player").get()
        if t.player.user_id == friend.pk:
            Turn.objects.filter(pk=t.pk).update(next_step_at=None)
            play.game_settle(game_id=game.pk)
            continue
        roll(game, actor(host))
        t = Turn.objects.get(pk=t.pk)
        box = next(b for b in Box if b.name not in t.player.boxes)
        play.turn_choose_box(game_id=game.pk, actor=actor(host), turn=t.number, roll=1, box=box.name)
        play.turn_confirm(game_id=game.pk, actor=actor(host), turn=t.number, roll=1)
    players = {p.user_id: p for p in Player.objects.filter(game=game)}
    assert players[friend.pk].sheet.is_complete
    assert players[host.pk].rank == 1 and players[friend.pk].rank == 2


def test_leave_refusals(host, friend, user):
    game = started_two_player_game(host, friend)
    stranger = Actor(user_id=user.pk, name=user.username)
    before = snapshot(game.pk)
    with pytest.raises(GameNotFound):
        rooms.seat_leave(game_id=game.pk, actor=stranger)
    assert snapshot(game.pk) == before
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    before = snapshot(game.pk)
    with pytest.raises(GameActionError, match="This game is over"):
        rooms.seat_leave(game_id=game.pk, actor=actor(host))
    assert snapshot(game.pk) == before


def test_leave_is_only_for_friends_games(user, user_actor):
    game = play.game_create_solo(actor=user_actor)
    with pytest.raises(GameActionError) as exc:
        rooms.seat_leave(game_id=game.pk, actor=user_actor)
    assert exc.value.status == 400


def test_leave_through_the_page(host, friend):
    game = started_two_player_game(host, friend)
    client = client_for(friend)
    html = client.get(f"/games/{game.pk}/").content.decode()
    assert "data-leave" in html and f'action="/games/{game.pk}/leave/"' in html
    response = client.post(f"/games/{game.pk}/leave/", **HX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "data-leave" not in html and "the computer plays your seat to the end" in html
    assert 'data-action="take-back"' not in html
    response = client.post(f"/games/{game.pk}/leave/", **HX)
    assert response.status_code == 409 and "You have already left this game." in response.content.decode()
    response = client.post(f"/games/{game.pk}/take-back/", **HX)
    assert response.status_code == 403
    # Not seated: no such game.
    assert Client().post(f"/games/{game.pk}/leave/").status_code in (302, 404)
    other = client_for(UserFactory())
    assert other.post(f"/games/{game.pk}/leave/", **HX).status_code == 404


def test_the_finished_result_marks_resigned_and_left_seats(host, friend):
    game = started_two_player_game(host, friend)
    rooms.seat_leave(game_id=game.pk, actor=actor(friend))
    Player.objects.filter(game=game, user=host).update(rank=1)
    Player.objects.filter(game=game, user=friend).update(rank=2)
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    html = client_for(friend).get(f"/games/{game.pk}/").content.decode()
    assert "You left this game: it counts as a loss." in html
    assert "data-left" in html


def test_a_resigned_game_can_be_reviewed_and_exported(user, user_client, user_actor):
    game = play.game_create_solo(actor=user_actor)
    roll(game, user_actor)
    place(game, user_actor, Box.CHANCE)
    roll(game, user_actor)
    play.game_resign(game_id=game.pk, actor=user_actor)
    review = user_client.get(f"/games/{game.pk}/review/")
    assert review.status_code == 200
    assert '<span class="badge" data-left>resigned</span>' in review.content.decode()
    assert user_client.get(f"/games/{game.pk}/export.json").status_code == 200
    history = user_client.get("/games/").content.decode()
    assert "Resigned" in history


def test_a_local_game_is_not_resigned_by_one_of_its_people(guest_actor):

    game = local.local_game_create(actor=guest_actor, seats=[SeatSpec(name="Anna"), SeatSpec(name="Ben")])
    before = snapshot(game.pk)
    with pytest.raises(GameActionError, match="Only a solo game or one against the computer") as exc:
        play.game_resign(game_id=game.pk, actor=guest_actor)
    assert exc.value.status == 400
    assert snapshot(game.pk) == before


def test_a_seat_that_left_cannot_act(host, friend):
    game = started_two_player_game(host, friend)
    rooms.seat_leave(game_id=game.pk, actor=actor(host))  # on their own turn
    # The computer's next step not yet due, so the refused roll has nothing to settle either.
    later = timezone.now() + timedelta(minutes=5)
    Turn.objects.filter(game=game, completed_at__isnull=True).update(next_step_at=later)
    before = snapshot(game.pk)
    with pytest.raises(GameActionError, match="You have already left this game") as exc:
        play.turn_roll(game_id=game.pk, actor=actor(host), turn=1, roll=0)
    assert exc.value.status == 403
    assert snapshot(game.pk) == before
