"""Local games (pass and play): creating them, the device's owner acting for each person's seat, the
"Pass to" screen, hints, history, linking a column to a friend, and local games left out of ratings."""

import csv
import io

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.test import Client
from django.urls import reverse

from dicegame import play
from dicegame.actors import Actor
from dicegame.errors import GameActionError, GameNotFound
from dicegame.models import Game, Player, SeatLink
from dicegame.play import local, selectors
from dicegame.play.games import guest_games_claim
from dicegame.play.local import SeatSpec
from dicegame.screen.state import board_state
from dicegame.screen.view import game_board
from dicegame.strategy import computer
from live.pushes import render_board
from notifications.notices import user_group
from review.leaderboards import leaderboards
from review.stats import player_stats
from tests.support import HX
from tests.support.factories import PASSWORD, UserFactory, befriend
from tests.support.games import current, snapshot

pytestmark = pytest.mark.django_db
ANNA_BEN_COMPUTER = [SeatSpec(name="Anna"), SeatSpec(name="Ben"), SeatSpec(strength="easy")]


@pytest.fixture
def local_game(user_actor):
    return local.local_game_create(actor=user_actor, seats=ANNA_BEN_COMPUTER)


def play_local_turn(game, actor):
    """Roll once and write the dice where the auto-commit would."""
    t = current(game.pk)
    play.turn_roll(game_id=game.pk, actor=actor, turn=t.number, roll=t.rolls_used)
    t = current(game.pk)
    box = computer.auto_commit_box(t.player.sheet, tuple(t.dice))
    play.turn_choose_box(game_id=game.pk, actor=actor, turn=t.number, roll=t.rolls_used, box=box.name)
    play.turn_confirm(game_id=game.pk, actor=actor, turn=t.number, roll=t.rolls_used)


def play_to_the_end(game, actor) -> Game:
    while (game := Game.objects.get(pk=game.pk)).is_active:
        if current(game.pk).player.is_bot:
            play.game_hurry(game_id=game.pk, actor=actor)
        else:
            play_local_turn(game, actor)
    return game


# -- creating ----------------------------------------------------------------------------------------


def test_a_local_game_seats_typed_names_and_computers_in_order(local_game, user):
    seats = list(local_game.players.order_by("seat"))
    assert local_game.kind == Game.Kind.LOCAL and local_game.host_id == user.pk
    assert [(p.name, p.user_id, p.controller_id, p.bot_strength) for p in seats] == [
        ("Anna", None, user.pk, ""),
        ("Ben", None, user.pk, ""),
        ("Computer (easy)", None, None, "easy"),
    ]
    assert current(local_game.pk).player == seats[0]
    assert not local_game.hints_used and not any(p.hints for p in seats)


def test_a_guest_creates_a_local_game_for_their_session(guest_actor):
    game = local.local_game_create(actor=guest_actor, seats=[SeatSpec(name="Anna"), SeatSpec(name="Ben")])
    people = list(game.players.all())
    assert {p.controller_guest_key for p in people} == {guest_actor.guest_key}
    assert all(p.guest_key == "" and p.user_id is None for p in people)


@pytest.mark.parametrize(
    ("seats", "message"),
    [
        ([SeatSpec(name="Anna")], "at least two people"),
        ([SeatSpec(name="Anna"), SeatSpec(strength="hard")], "at least two people"),
        ([SeatSpec(name=n) for n in "ABCDE"], "at most four seats"),
        ([SeatSpec(name="Anna"), SeatSpec(name="   ")], "Type a name"),
        # Nothing visible: zero-width and bidirectional characters only (dicegame.rules.names).
        ([SeatSpec(name="Anna"), SeatSpec(name="\u200b\u2060\ufeff")], "Type a name"),
        ([SeatSpec(name="Anna"), SeatSpec(name="\u202e\u2066\u200d")], "Type a name"),
        ([SeatSpec(name="Anna"), SeatSpec(name="anna")], "different name"),
        ([SeatSpec(name="Anna"), SeatSpec(name="x" * 31)], "at most 30 characters"),
        ([SeatSpec(name="Anna"), SeatSpec(name="Ben"), SeatSpec(strength="godlike")], "Unknown strength"),
    ],
)
def test_bad_local_games_are_refused_and_nothing_is_made(user_actor, seats, message):
    with pytest.raises(GameActionError, match=message) as exc:
        local.local_game_create(actor=user_actor, seats=seats)
    assert exc.value.status == 400
    assert not Game.objects.exists() and not Player.objects.exists()


def test_a_computer_in_the_first_seat_plays_first(user_actor):
    game = local.local_game_create(
        actor=user_actor, seats=[SeatSpec(strength="hard"), SeatSpec(name="Anna"), SeatSpec(name="Ben")]
    )
    play.game_hurry(game_id=game.pk, actor=user_actor)
    assert current(game.pk).player.name == "Anna"


# -- playing -----------------------------------------------------------------------------------------


def test_the_owner_plays_every_person_seat_and_the_computer_its_own(local_game, user_actor):
    play_local_turn(local_game, user_actor)
    assert current(local_game.pk).player.name == "Ben"
    play_local_turn(local_game, user_actor)
    assert current(local_game.pk).player.is_bot
    with pytest.raises(GameActionError, match="not your turn"):
        t = current(local_game.pk)
        play.turn_roll(game_id=local_game.pk, actor=user_actor, turn=t.number, roll=0)
    play.game_hurry(game_id=local_game.pk, actor=user_actor)
    assert current(local_game.pk).player.name == "Anna" and current(local_game.pk).round == 2


@pytest.mark.parametrize("stranger", [Actor(guest_key="someone-else"), Actor(user_id=None, guest_key="")])
def test_nobody_else_acts_in_or_sees_a_local_game(local_game, stranger):
    before = snapshot(local_game.pk)
    with pytest.raises(GameNotFound):
        play.turn_roll(game_id=local_game.pk, actor=stranger, turn=1, roll=0)
    assert snapshot(local_game.pk) == before
    assert not selectors.game_visible(game=local_game, actor=stranger)


def test_another_user_gets_404_from_the_page_and_the_actions(local_game):
    client = Client()
    client.force_login(UserFactory(username="mallory"))
    before = snapshot(local_game.pk)
    assert client.get(reverse("dicegame:game", args=[local_game.pk])).status_code == 404
    response = client.post(reverse("dicegame:roll", args=[local_game.pk]), {"turn": 1, "roll": 0}, **HX)
    assert response.status_code == 404
    assert snapshot(local_game.pk) == before


def test_the_auto_commit_runs_for_a_person_of_a_local_game(local_game, user_actor, settings):
    settings.PENTA_AUTO_COMMIT_SECONDS = 0
    for _ in range(3):
        t = current(local_game.pk)
        play.turn_roll(game_id=local_game.pk, actor=user_actor, turn=t.number, roll=t.rolls_used)
    assert play.game_settle(game_id=local_game.pk)
    anna = local_game.players.get(seat=0)
    assert len(anna.boxes) == 1 and current(local_game.pk).player.name == "Ben"


def test_a_local_game_played_to_the_end_ranks_everyone(local_game, user_actor):
    game = play_to_the_end(local_game, user_actor)
    assert game.is_finished
    seats = list(game.players.order_by("seat"))
    assert all(len(p.boxes) == 13 for p in seats)
    assert sorted(p.rank for p in seats)[0] == 1


# -- the screen: whose turn, the pass screen ---------------------------------------------------------


def test_the_board_is_the_current_person_s_with_a_pass_screen_before_the_first_roll(local_game, user_actor):
    # The game's very first turn needs no hand-over: the device is in Anna's hands (issue 40).
    board = game_board(game=local_game, actor=user_actor)
    assert board.my_turn and board.can_roll and board.pass_to == ""
    play_local_turn(local_game, user_actor)
    board = game_board(game=Game.objects.get(pk=local_game.pk), actor=user_actor)
    assert board.my_turn and board.my_seat.name == "Ben" and board.pass_to == "Ben"
    t = current(local_game.pk)
    play.turn_roll(game_id=local_game.pk, actor=user_actor, turn=t.number, roll=0)
    board = game_board(game=Game.objects.get(pk=local_game.pk), actor=user_actor)
    assert board.my_turn and board.can_hold and board.pass_to == ""


def test_while_the_computer_plays_the_screen_shows_it_playing(local_game, user_actor):
    play_local_turn(local_game, user_actor)
    play_local_turn(local_game, user_actor)
    board = game_board(game=Game.objects.get(pk=local_game.pk), actor=user_actor)
    assert board.bot_playing and not board.my_turn and not board.spectator and board.pass_to == ""


def test_the_game_page_says_whom_to_pass_to_and_the_tap_rolls(user_client, user):
    response = user_client.post(
        reverse("dicegame:new_local"), {"name_1": "Anna", "name_2": "Ben", "computer_1": "easy"}
    )
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("dicegame:game", args=[game.pk])
    page = user_client.get(response["Location"]).content.decode()
    # The very first turn: the device is in Anna's hands already, no hand-over; the line names her.
    assert "data-pass-to" not in page and "Round 1 of 13 · Anna · 3 rolls left" in page
    assert "Ben" in page and "Computer (easy)" in page  # the whole sheet, every column
    user_client.post(reverse("dicegame:roll", args=[game.pk]), {"turn": 1, "roll": 0}, **HX)
    user_client.post(reverse("dicegame:choose", args=[game.pk, "CHANCE"]), {"turn": 1, "roll": 1}, **HX)
    user_client.post(reverse("dicegame:confirm", args=[game.pk]), {"turn": 1, "roll": 1}, **HX)
    page = user_client.get(response["Location"]).content.decode()
    assert 'data-pass-to="Ben"' in page and "Ben, tap to start your turn" in page
    response = user_client.post(reverse("dicegame:roll", args=[game.pk]), {"turn": 2, "roll": 0}, **HX)
    assert response.status_code == 200
    assert "data-pass-to" not in response.content.decode()
    assert current(game.pk).rolls_used == 1


def test_a_reload_resumes_the_same_game(user_client):
    user_client.post(reverse("dicegame:new_local"), {"name_1": "Anna", "name_2": "Ben"})
    game = Game.objects.get()
    user_client.post(reverse("dicegame:roll", args=[game.pk]), {"turn": 1, "roll": 0})
    dice = current(game.pk).dice
    page = user_client.get(reverse("dicegame:game", args=[game.pk])).content.decode()
    assert 'name="roll" value="1"' in page
    assert all(f'data-value="{v}"' in page for v in dice)


def test_the_new_game_form_and_its_refusals(user_client):
    page = user_client.get(reverse("dicegame:new_local"))
    assert page.status_code == 200 and 'name="name_1"' in page.content.decode()
    response = user_client.post(reverse("dicegame:new_local"), {"name_1": "Anna", "name_2": ""})
    assert response.status_code == 400
    body = response.content.decode()
    assert "Type a name for every person." in body and 'value="Anna"' in body
    assert not Game.objects.exists()


def test_the_form_is_in_dutch_too(client, db):
    client.cookies["django_language"] = "nl"
    page = client.get(reverse("dicegame:new_local"), HTTP_ACCEPT_LANGUAGE="nl").content.decode()
    assert "Speel op één apparaat" in page


def test_the_home_page_offers_a_local_game(client, db):
    assert reverse("dicegame:new_local") in client.get(reverse("dicegame:home")).content.decode()


# -- hints -------------------------------------------------------------------------------------------


def test_hints_are_off_until_turned_on_for_the_game_which_marks_it(local_game, user_actor):
    assert game_board(game=local_game, actor=user_actor).hints is None
    play.game_set_hints(game_id=local_game.pk, actor=user_actor, on=True)
    game = Game.objects.get(pk=local_game.pk)
    assert game.hints_used
    assert all(p.hints for p in game.players.filter(bot_strength=""))
    play_local_turn(game, user_actor)  # Ben's turn: his hints too
    assert game_board(game=Game.objects.get(pk=game.pk), actor=user_actor).hints is not None


def test_hints_chosen_at_the_start_mark_the_game(user_client):
    user_client.post(reverse("dicegame:new_local"), {"name_1": "Anna", "name_2": "Ben", "hints": "1"})
    game = Game.objects.get()
    assert game.hints_used and all(p.hints for p in game.players.all())


# -- history, guests, linking a column ---------------------------------------------------------------


def test_the_owner_s_history_lists_the_game_with_the_winner(local_game, user_actor, user_client):
    game = play_to_the_end(local_game, user_actor)
    row = selectors.history_page(actor=user_actor, page=1).object_list[0]
    assert row.game == game and row.device_owner
    winners = [p.name for p in game.players.all() if p.rank == 1]
    assert row.result == "Won by " + ", ".join(winners)
    page = user_client.get(reverse("dicegame:history")).content.decode()
    assert f'data-game="{game.pk}"' in page and row.result in page


def test_a_guest_s_local_games_move_into_the_account_they_log_in_to(guest_actor):
    game = local.local_game_create(actor=guest_actor, seats=[SeatSpec(name="Anna"), SeatSpec(name="Ben")])
    user = UserFactory()
    guest_games_claim(user=user, guest_key=guest_actor.guest_key)
    game.refresh_from_db()
    assert game.host_id == user.pk
    assert {(p.name, p.controller_id, p.user_id) for p in game.players.all()} == {
        ("Anna", user.pk, None),
        ("Ben", user.pk, None),
    }
    assert selectors.history_page(actor=Actor(user_id=user.pk), page=1).object_list[0].game == game


@pytest.fixture
def finished(local_game, user_actor):
    return play_to_the_end(local_game, user_actor)


def test_linking_a_column_needs_the_friend_s_confirmation(finished, user, user_client):
    friend = UserFactory(username="bennie")
    befriend(user, friend)
    response = user_client.post(
        reverse("dicegame:local_link", args=[finished.pk]), {"seat": 1, "username": "bennie"}
    )
    assert response.status_code == 302
    link = SeatLink.objects.get()
    assert link.status == SeatLink.Status.PENDING and link.player.user_id is None
    friend_client = Client()
    assert friend_client.login(username="bennie", password=PASSWORD)
    page = friend_client.get(reverse("dicegame:history")).content.decode()
    assert f'data-link="{link.pk}"' in page and "you played as Ben" in page
    assert f'data-game="{finished.pk}"' not in page
    response = friend_client.post(reverse("dicegame:local_link_accept", args=[link.pk]))
    assert response.status_code == 302
    ben = finished.players.get(seat=1)
    assert ben.user_id == friend.pk and ben.name == "Ben"
    page = friend_client.get(reverse("dicegame:history")).content.decode()
    assert f'data-game="{finished.pk}"' in page
    assert friend_client.get(reverse("review:review", args=[finished.pk])).status_code == 200
    # The owner still has the game and sees the column linked.
    assert (
        "linked to bennie"
        in user_client.get(reverse("dicegame:local_link", args=[finished.pk])).content.decode()
    )


def test_a_declined_column_stays_unlinked(finished, user):
    friend = UserFactory(username="bennie")
    befriend(user, friend)
    link = local.seat_link_request(user=user, game_id=finished.pk, seat=0, username="bennie")
    local.seat_link_answer(user=friend, link_id=link.pk, accept=False)
    assert finished.players.get(seat=0).user_id is None
    with pytest.raises(GameActionError, match="already been answered"):
        local.seat_link_answer(user=friend, link_id=link.pk, accept=True)


def test_linking_refusals_change_nothing(local_game, user, user_actor):
    stranger = UserFactory(username="stranger")
    friend = UserFactory(username="bennie")
    befriend(user, friend)
    with pytest.raises(GameActionError, match="once the game is over"):
        local.seat_link_request(user=user, game_id=local_game.pk, seat=0, username="bennie")
    game = play_to_the_end(local_game, user_actor)
    with pytest.raises(GameActionError, match="one of your friends"):
        local.seat_link_request(user=user, game_id=game.pk, seat=0, username="stranger")
    with pytest.raises(GameActionError, match="person's seat"):
        local.seat_link_request(user=user, game_id=game.pk, seat=2, username="bennie")  # the computer
    with pytest.raises(GameNotFound):
        local.seat_link_request(user=friend, game_id=game.pk, seat=0, username="player")
    link = local.seat_link_request(user=user, game_id=game.pk, seat=0, username="bennie")
    with pytest.raises(GameNotFound):
        local.seat_link_answer(user=stranger, link_id=link.pk, accept=True)
    local.seat_link_answer(user=friend, link_id=link.pk, accept=True)
    with pytest.raises(GameActionError, match="already has a column"):
        local.seat_link_request(user=user, game_id=game.pk, seat=1, username="bennie")
    assert SeatLink.objects.count() == 1


def test_the_link_views_answer_refusals_with_a_message(finished, user, user_client):
    response = user_client.post(
        reverse("dicegame:local_link", args=[finished.pk]), {"seat": 0, "username": "nobody"}
    )
    assert response.status_code == 400 and "one of your friends" in response.content.decode()
    other = Client()
    other.force_login(UserFactory(username="mallory"))
    assert other.get(reverse("dicegame:local_link", args=[finished.pk])).status_code == 404
    assert other.post(reverse("dicegame:local_link_accept", args=[999])).status_code == 404
    assert not SeatLink.objects.exists()


def test_local_games_never_count_for_leaderboards(finished, user):
    friend = UserFactory(username="bennie")
    befriend(user, friend)
    link = local.seat_link_request(user=user, game_id=finished.pk, seat=0, username="bennie")
    local.seat_link_answer(user=friend, link_id=link.pk, accept=True)
    boards = leaderboards(user_ids=[friend.pk], viewer_id=friend.pk)
    assert all(not board.rows for board in boards)


# -- the screen over the socket ----------------------------------------------------------------------


def test_a_push_to_the_device_gives_the_current_person_the_controls(local_game, user_actor):

    play_local_turn(local_game, user_actor)  # Ben's turn now
    game = Game.objects.get(pk=local_game.pk)
    players = list(game.players.order_by("seat"))
    # The device's socket is held by the first person's seat (presence picks the first seat it owns).
    html = render_board(board_state(game=game, players=players), players[0], "en")
    assert 'data-pass-to="Ben"' in html and "Ben, tap to start your turn" in html
    assert (
        'data-action="roll"' in html and "disabled" not in html.split('data-action="roll"')[1].split(">")[0]
    )


def test_the_pass_screen_is_in_dutch(local_game, user_actor):

    play_local_turn(local_game, user_actor)
    players = list(local_game.players.order_by("seat"))
    html = render_board(board_state(game=local_game, players=players), players[1], "nl")
    assert "Geef door aan Ben" in html and "Ben, tik om je beurt te beginnen" in html


def test_a_guest_plays_a_local_game_over_http_and_nobody_else_sees_it(guest_client):
    response = guest_client.post(
        reverse("dicegame:new_local"), {"name_1": "Anna", "name_2": "Ben", "name_3": "Cas"}, **HX
    )
    game = Game.objects.get()
    assert response.status_code == 200 and response["HX-Redirect"] == reverse("dicegame:game", args=[game.pk])
    assert [p.name for p in game.players.order_by("seat")] == ["Anna", "Ben", "Cas"]
    assert (
        guest_client.post(reverse("dicegame:roll", args=[game.pk]), {"turn": 1, "roll": 0}).status_code == 302
    )
    assert Client().get(reverse("dicegame:game", args=[game.pk])).status_code == 404


def test_hints_switched_on_in_the_game_page(user_client, local_game):
    response = user_client.post(reverse("dicegame:hints", args=[local_game.pk]), {"on": "1"}, **HX)
    assert response.status_code == 200 and "data-expected-total" in response.content.decode()
    local_game.refresh_from_db()
    assert local_game.hints_used


def test_a_linked_local_game_is_in_the_friend_s_games_but_not_their_records(finished, user):
    friend = UserFactory(username="bennie")
    befriend(user, friend)
    link = local.seat_link_request(user=user, game_id=finished.pk, seat=1, username="bennie")
    local.seat_link_answer(user=friend, link_id=link.pk, accept=True)
    stats = player_stats(user_id=friend.pk)
    assert stats.games == 1 and stats.best is None


def test_the_friend_gets_a_live_notice_of_the_offered_column(
    finished, user, django_capture_on_commit_callbacks
):

    friend = UserFactory(username="bennie")
    befriend(user, friend)

    def offer():
        with django_capture_on_commit_callbacks(execute=True):
            local.seat_link_request(user=user, game_id=finished.pk, seat=1, username="bennie")

    async def listen_while_offering() -> dict:
        # One event loop for the layer's whole life: the Redis pub/sub layer is bound to its loop.
        layer = get_channel_layer()
        channel = await layer.new_channel()
        await layer.group_add(user_group(friend.pk), channel)
        await sync_to_async(offer)()
        return await layer.receive(channel)

    event = async_to_sync(listen_while_offering)()
    assert f"{user.username} asks you to confirm a column" in event["html"]
    assert 'href="/games/"' in event["html"]


def test_typed_names_are_shown_as_text_never_markup(user_client):
    hostile = '"><img src=x onerror=alert(1)>'
    user_client.post(reverse("dicegame:new_local"), {"name_1": hostile, "name_2": "Ben"})
    game = Game.objects.get()
    page = user_client.get(reverse("dicegame:game", args=[game.pk])).content.decode()
    assert "<img src=x" not in page
    assert "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;" in page


def test_the_creator_s_csv_has_a_row_per_person_s_column_that_never_counts(finished, user_client):

    response = user_client.get("/games/export.csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    local_rows = [r for r in rows if r["game"] == str(finished.pk)]
    people = {p.seat: p for p in finished.players.filter(bot_strength="")}
    assert sorted(int(r["seat"]) for r in local_rows) == sorted(s + 1 for s in people)
    anna = next(r for r in local_rows if r["seat"] == "1")
    assert anna["kind"] == "local" and anna["total"] == str(people[0].total)
    assert "Ben" in anna["opponents"] and "Anna" not in anna["opponents"]
    assert {r["counts_for_records"] for r in local_rows} == {"0"}
