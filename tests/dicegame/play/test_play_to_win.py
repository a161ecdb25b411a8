"""The computer that plays to win in play: a strength of the games against the computer (the create
form offers it, in English and Dutch), not of rooms; it plays the seat of an absent person in a casual
game, never in a rated or a tournament one. Its decision is checked end to end through the clock, on a
position whose answer is known (docs/analysis.md, "Playing to win")."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from dicegame import play
from dicegame.errors import GameActionError
from dicegame.models import Game, Player, Turn
from dicegame.play import rooms
from dicegame.play.clock import stand_in_strength
from dicegame.rules.scoring import Box
from tests.support.factories import GameFactory, PlayerFactory, UserFactory, actor

pytestmark = pytest.mark.django_db

UPPER_63 = {b.name: 3 * b.face for b in Box if b.is_upper}
# Behind by 60 with Chance and Penta open, 1-1-2-3-5 on the last roll: for the total, 0 in Penta; to
# win, 12 in Chance (only a Penta can still pass the opponent).
BEHIND = {**UPPER_63, **{b.name: 0 for b in Box if not b.is_upper and b not in (Box.CHANCE, Box.PENTA)}}
AHEAD = {**UPPER_63, **{b.name: 0 for b in Box if not b.is_upper}, "THREE_OF_A_KIND": 30, "CHANCE": 30}


def known_position(kind: str, *, bot: str = "", rated: bool = False, dice_key: str = "") -> Turn:
    """The opponent (seat 0) has finished 60 ahead; seat 1 (a computer of strength `bot`, or a person
    away) has rolled 1-1-2-3-5 for the third time, its move due now."""
    game = GameFactory(kind=kind, rated=rated, dice_key=dice_key)
    PlayerFactory(game=game, seat=0, boxes=AHEAD, total=158)
    if bot:
        mover = Player.objects.create(
            game=game, seat=1, bot_strength=bot, name="Computer", boxes=BEHIND, total=98
        )
    else:
        mover = PlayerFactory(game=game, seat=1, boxes=BEHIND, total=98, stand_in=True, missed_turns=2)
    dice = [1, 1, 2, 3, 5]
    return Turn.objects.create(
        game=game,
        player=mover,
        number=26,
        round=13,
        dice=dice,
        held=[False] * 5,
        rolls=[{"dice": dice, "held": [False] * 5}] * 3,
        stand_in=not bot,
        next_step_at=timezone.now() - timedelta(seconds=1),
    )


@pytest.mark.parametrize(("bot", "box"), [("winner", Box.CHANCE), ("hard", Box.PENTA)])
def test_the_computer_that_plays_to_win_takes_the_risky_box_behind_by_60(bot, box):
    turn = known_position(Game.Kind.COMPUTER, bot=bot)
    play.game_settle(game_id=turn.game_id)
    turn.refresh_from_db()
    assert turn.chosen_box == box.name


@pytest.mark.parametrize(
    ("kind", "rated", "dice_key", "box"),
    [
        (Game.Kind.FRIENDS, False, "", Box.CHANCE),  # casual: the stand-in plays to win for the person
        (Game.Kind.LOCAL, False, "", Box.CHANCE),
        (Game.Kind.FRIENDS, True, "", Box.PENTA),  # rated: the expected-total play, as ever
        (Game.Kind.FRIENDS, False, "round-1", Box.PENTA),  # a tournament round's shared dice
    ],
)
def test_an_absent_persons_seat_is_played_to_win_only_in_casual_games(kind, rated, dice_key, box):
    turn = known_position(kind, rated=rated, dice_key=dice_key)
    play.game_settle(game_id=turn.game_id)
    turn.refresh_from_db()
    assert turn.chosen_box == box.name


def test_the_stand_in_is_the_winner_only_where_nothing_is_at_stake_for_the_person():
    assert stand_in_strength(Game(kind=Game.Kind.FRIENDS)) == "winner"
    assert stand_in_strength(Game(kind=Game.Kind.FRIENDS, rated=True)) == "hard"
    assert stand_in_strength(Game(kind=Game.Kind.SOLO, daily_date=timezone.now().date())) == "hard"
    assert stand_in_strength(Game(kind=Game.Kind.FRIENDS, dice_key="t-1")) == "hard"


def test_the_create_form_offers_the_winner_in_english_and_dutch(client):
    page = client.get("/").content.decode()
    assert '<option value="winner">Winner (plays to win)</option>' in page
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="nl").content.decode()
    assert '<option value="winner">Winnaar (speelt om te winnen)</option>' in page
    response = client.post("/games/computer/", {"strength": ["winner", "hard"]})
    game = Game.objects.get()
    assert response.status_code == 302
    bots = list(game.players.filter(seat__gt=0).order_by("seat"))
    assert [p.bot_strength for p in bots] == ["winner", "hard"]
    assert bots[0].display_name == "Computer 1 (winner)"


def test_a_room_does_not_seat_the_winner():
    host = UserFactory()
    game = rooms.room_create(actor=actor(host), seats=3, turn_seconds=60, rated=True)
    with pytest.raises(GameActionError, match="choose easy, medium or hard") as exc:
        rooms.room_add_computer(game_id=game.pk, actor=actor(host), strength="winner")
    assert exc.value.status == 400
    assert game.players.count() == 1
