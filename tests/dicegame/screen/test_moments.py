"""Moments the server celebrates (a Penta rolled or scored, a Penta bonus, the upper bonus, the end of a
game), the forced joker explaining itself, and the end-of-game result (place, total, best, ranking)."""

import re
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from dicegame import play
from dicegame.models import Game, Player, Turn
from dicegame.play import rooms
from dicegame.rules.scoring import Box
from tests.support import HX
from tests.support.factories import GameFactory, PlayerFactory, actor, client_for
from tests.support.games import current, place, rigged_turn, roll, two_player_game
from tests.support.sockets import connect, frame_with_version


def write(client, game, turn, box) -> str:
    assert client.post(f"/games/{game.pk}/choose/{box}/", {"turn": turn, "roll": 1}, **HX).status_code == 200
    response = client.post(f"/games/{game.pk}/confirm/", {"turn": turn, "roll": 1}, **HX)
    assert response.status_code == 200
    return response.content.decode()


def moments_region(html: str) -> str:
    return re.search(r'<div id="moments".*?</div>', html, re.S).group(0)


@pytest.mark.django_db
def test_a_penta_scored_is_celebrated_once_in_the_answer(user):
    game = rigged_turn(user, [3] * 5)
    turn = current(game.pk).number
    client = client_for(user)
    page = client.get(f"/games/{game.pk}/").content.decode()
    # The rolled Penta is a moment of its own, keyed by turn and roll.
    assert f'data-moment="penta-rolled-{turn}-1"' in moments_region(page)
    assert "Penta! Five 3s." in page
    html = write(client, game, turn, "PENTA")
    region = moments_region(html)
    assert f'data-moment="penta-{turn}" data-kind="penta"' in region and "Penta! 50 points." in region
    # A page load later shows the board, not the moment again.
    assert "data-moment" not in moments_region(client.get(f"/games/{game.pk}/").content.decode())


@pytest.mark.django_db
def test_a_penta_bonus_is_celebrated(user):
    game = rigged_turn(user, [4] * 5, {Box.PENTA: 50})
    turn = current(game.pk).number
    html = write(client_for(user), game, turn, "FOURS")
    region = moments_region(html)
    assert f'data-moment="penta-bonus-{turn}"' in region
    assert "a Penta bonus of 100" in region


@pytest.mark.django_db
def test_reaching_the_upper_bonus_is_celebrated_when_it_happens(user):
    # 3 + 6 + 9 + 12 + 15 = 45; three 6s (18) makes 63.
    upper = {Box.ONES: 3, Box.TWOS: 6, Box.THREES: 9, Box.FOURS: 12, Box.FIVES: 15}
    game = rigged_turn(user, [6, 6, 6, 1, 2], upper)
    turn = current(game.pk).number
    html = write(client_for(user), game, turn, "SIXES")
    assert f'data-moment="upper-bonus-{turn}"' in moments_region(html)
    assert "Upper bonus reached: +35!" in html
    # Past the threshold already: the next upper box is no moment.
    game = rigged_turn(user, [6, 6, 6, 1, 2], {**upper, Box.FIVES: 25})
    turn = current(game.pk).number
    game.players.update(boxes={b.name: p for b, p in {**upper, Box.FIVES: 25, Box.FOURS: 20}.items()})
    html = write(client_for(user), game, turn, "SIXES")
    assert "upper-bonus" not in moments_region(html)


@pytest.mark.django_db
def test_an_ordinary_box_is_no_moment(user):
    game = rigged_turn(user, [1, 2, 3, 5, 6])
    turn = current(game.pk).number
    assert "data-moment" not in moments_region(write(client_for(user), game, turn, "CHANCE"))


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_moments_reach_every_screen_of_a_live_game():
    game, host, friend = await database_sync_to_async(two_player_game)()
    a = actor(host)
    to_friend = await connect(game.pk, friend)
    await to_friend.receive_from(timeout=5)

    def rig_and_score():
        Turn.objects.filter(game=game, number=1).update(
            dice=[5] * 5, rolls=[{"dice": [5] * 5, "held": [False] * 5}]
        )
        play.turn_choose_box(game_id=game.pk, actor=a, turn=1, roll=1, box="PENTA")
        play.turn_confirm(game_id=game.pk, actor=a, turn=1, roll=1)
        return Game.objects.get(pk=game.pk).version

    version = await database_sync_to_async(rig_and_score)()
    pushed = await frame_with_version(to_friend, version)
    assert 'data-moment="penta-1" data-kind="penta"' in pushed
    assert "Penta! 50 points for hana." in pushed
    await to_friend.disconnect()


# -- the forced joker explains itself -----------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("boxes", "sentence"),
    [
        ({Box.PENTA: 50}, "this Penta must go in its own box, Sixes"),
        ({Box.PENTA: 50, Box.SIXES: 18}, "Joker: the Sixes box is full, so any open lower box scores as if"),
        (
            {Box.PENTA: 50, Box.SIXES: 18, **{b: 0 for b in Box if not b.is_upper and b is not Box.PENTA}},
            "every lower box are full, so this Penta goes in an open upper box for 0",
        ),
        ({Box.PENTA: 0}, None),  # a zero in the Penta box: no joker, ordinary scoring
        ({}, None),
    ],
)
def test_the_joker_says_why_boxes_close(user, boxes, sentence):
    game = rigged_turn(user, [6] * 5, boxes)
    _turn = current(game.pk).number
    html = client_for(user).get(f"/games/{game.pk}/").content.decode()
    if sentence is None:
        assert "data-joker" not in html
    else:
        note = re.search(r'<p class="joker-note" data-joker>(.*?)</p>', html, re.S).group(1)
        assert sentence in note


@pytest.mark.django_db
def test_the_joker_note_in_dutch(user):
    game = rigged_turn(user, [6] * 5, {Box.PENTA: 50, Box.SIXES: 18})
    _turn = current(game.pk).number
    html = client_for(user).get(f"/games/{game.pk}/", HTTP_ACCEPT_LANGUAGE="nl").content.decode()
    assert "Joker: het vakje Zessen is vol" in html


# -- the end of a game --------------------------------------------------------------------------------


def finished_solo(user, total, *, days_ago=0):
    game = GameFactory(status=Game.Status.FINISHED, finished_at=timezone.now() - timedelta(days=days_ago))
    PlayerFactory(game=game, user=user, total=total, rank=1, boxes={"CHANCE": min(total, 30)})
    return game


@pytest.mark.django_db
def test_a_new_best_is_told(user):
    finished_solo(user, 150, days_ago=3)
    finished_solo(user, 190, days_ago=2)
    finished_solo(user, 400, days_ago=-1)  # later: not "before this game"
    game = finished_solo(user, 230)
    html = client_for(user).get(f"/games/{game.pk}/").content.decode()
    assert 'data-final-total="230"' in html
    assert "A new best! Your best before this game was 190." in html
    assert f'data-moment="end-{game.pk}"' in html
    assert "Play again" in html


@pytest.mark.django_db
def test_the_best_is_shown_when_not_beaten_and_the_first_game_says_so(user):
    first = finished_solo(user, 120, days_ago=5)
    html = client_for(user).get(f"/games/{first.pk}/").content.decode()
    assert "Your first game that counts for records: your best so far." in html
    finished_solo(user, 250, days_ago=3)
    game = finished_solo(user, 200)
    html = client_for(user).get(f"/games/{game.pk}/").content.decode()
    assert 'data-best="250"' in html and "Your best: 250" in html and "new best" not in html


@pytest.mark.django_db
def test_the_ranking_numbers_each_place_once_and_ties_share_it(user):
    game = GameFactory(kind=Game.Kind.COMPUTER, status=Game.Status.FINISHED, finished_at=timezone.now())
    PlayerFactory(game=game, seat=0, user=user, total=185, rank=1)
    PlayerFactory(
        game=game, seat=1, user=None, bot_strength="hard", name="Computer 1 (hard)", total=185, rank=1
    )
    PlayerFactory(
        game=game, seat=2, user=None, bot_strength="easy", name="Computer 2 (easy)", total=120, rank=3
    )
    html = client_for(user).get(f"/games/{game.pk}/").content.decode()
    ranking = re.search(r'<ol class="ranking">(.*?)</ol>', html, re.S).group(1)
    items = re.findall(r"<li ([^>]*)>(.*?)</li>", ranking, re.S)
    assert [re.search(r'value="(\d)"', attrs).group(1) for attrs, _ in items] == ["1", "1", "3"]
    # The rank is the list's number only: never printed again in the text ("1. 1. Computer ...").
    for _attrs, text in items:
        assert not re.match(r"\s*\d+\.", text)
    assert "You won!" in html
    # Play again: the same opponents.
    form = re.search(r'<form method="post" action="/games/computer/">.*?</form>', html, re.S).group(0)
    assert re.findall(r'name="strength" value="(\w+)"', form) == ["hard", "easy"]


@pytest.mark.django_db
def test_a_lower_place_is_told(user):
    game = GameFactory(kind=Game.Kind.COMPUTER, status=Game.Status.FINISHED, finished_at=timezone.now())
    PlayerFactory(game=game, seat=0, user=user, total=150, rank=2)
    PlayerFactory(
        game=game, seat=1, user=None, bot_strength="hard", name="Computer (hard)", total=240, rank=1
    )
    html = client_for(user).get(f"/games/{game.pk}/").content.decode()
    assert 'data-place="2"' in html and "Your place: 2 of 2" in html
    html = client_for(user).get(f"/games/{game.pk}/", HTTP_ACCEPT_LANGUAGE="nl").content.decode()
    assert "Je plaats: 2 van 2" in html


@pytest.mark.django_db
def test_a_resigned_game_counts_as_it_stands(user, user_actor):
    """The records' one rule (dicegame.records): a resigned game counts with the boxes written, as the
    statistics count it; so a lower resigned total is no new best, and a higher one is."""
    finished_solo(user, 30, days_ago=2)
    lower = play.game_create_solo(actor=user_actor)
    Player.objects.filter(game=lower).update(boxes={"CHANCE": 25}, total=25)
    play.game_resign(game_id=lower.pk, actor=user_actor)
    html = client_for(user).get(f"/games/{lower.pk}/").content.decode()
    assert "You resigned this game" in html and "new best" not in html.lower()
    assert 'data-best="30"' in html

    higher = play.game_create_solo(actor=user_actor)
    Player.objects.filter(game=higher).update(boxes={"CHANCE": 25, "LARGE_STRAIGHT": 40}, total=65)
    play.game_resign(game_id=higher.pk, actor=user_actor)
    html = client_for(user).get(f"/games/{higher.pk}/").content.decode()
    assert "You resigned this game" in html
    assert "A new best! Your best before this game was 30." in html


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_leaving_is_told_to_the_table():
    game, host, friend = await database_sync_to_async(two_player_game)()
    b = actor(friend)
    to_host = await connect(game.pk, host)
    await to_host.receive_from(timeout=5)
    to_friend = await connect(game.pk, friend)  # the leaver's own screen, still open
    await to_friend.receive_from(timeout=5)

    def leave():

        rooms.seat_leave(game_id=game.pk, actor=b)
        return Game.objects.get(pk=game.pk).version

    version = await database_sync_to_async(leave)()
    pushed = await frame_with_version(to_host, version)
    assert 'data-kind="left"' in pushed and "femke left the game: the computer plays on for them." in pushed
    assert "data-left-seat" in pushed
    # The one who left is told in their own words, not in the third person.
    own = await frame_with_version(to_friend, version)
    assert "You left the game: the computer plays on for you." in own and "femke left the game" not in own
    await to_host.disconnect()
    await to_friend.disconnect()


@pytest.mark.django_db
@pytest.mark.parametrize("how", ["hurry", "tick"])
def test_the_computers_penta_is_celebrated_in_the_answer_that_played_it(user, user_actor, how):

    game = play.game_create_vs_computer(actor=user_actor, strengths=["hard"])
    roll(game, user_actor)
    place(game, user_actor, Box.CHANCE)
    # The computer's turn shows a Penta after its third roll: it writes 50 in the Penta box.
    three = [{"dice": [2] * 5, "held": [False] * 5}] * 3
    # (A tick makes one paced step: the box is chosen already, so that step writes it.)
    chosen = "PENTA" if how == "tick" else ""
    Turn.objects.filter(game=game, number=2).update(
        dice=[2] * 5, rolls=three, chosen_box=chosen, next_step_at=timezone.now()
    )
    response = client_for(user).post(f"/games/{game.pk}/{how}/", **HX)
    assert response.status_code == 200
    assert Turn.objects.get(game=game, number=2).box == "PENTA"
    region = moments_region(response.content.decode())
    assert 'data-moment="penta-2"' in region and "Penta! 50 points for Computer (hard)." in region
