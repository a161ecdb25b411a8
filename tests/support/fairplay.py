"""Fair play for a test: rated games whose people's seats were played by the computer players (the hard
one is the solver itself), assessed as the clock would; and simulated people (`fairplay.simulate`)
playing a game through the real services, move by move on the test's clock."""

from __future__ import annotations

import datetime as dt

from dicegame import play
from dicegame.errors import GameActionError
from dicegame.models import Game, Turn
from dicegame.play import rooms
from dicegame.rules.turn import RATED_TURN_SECONDS, ROUNDS
from fairplay import services, simulate
from tests.support.factories import UserFactory, actor
from tests.support.games import make_game


def rated_games(user, n: int, *, strength="hard", opponent=None, opponent_strength="easy", pace=6.0) -> list:
    """n finished rated games of `user` (played as the `strength` computer) against `opponent` (a fresh
    account each game when None), not yet assessed; every decision in them took `pace` seconds."""
    games = []
    for _ in range(n):
        other = opponent or UserFactory()
        game = make_game([user, other], kind=Game.Kind.FRIENDS, strengths=[strength, opponent_strength])
        Game.objects.filter(pk=game.pk).update(rated=True)
        game.refresh_from_db()
        for turn in Turn.objects.filter(game=game):
            start = turn.completed_at - dt.timedelta(seconds=pace * (len(turn.rolls) + 1))
            turn.roll_times = [start.timestamp() + pace * k for k in range(len(turn.rolls))]
            turn.chosen_at = start + dt.timedelta(seconds=pace * len(turn.rolls))
            turn.save(update_fields=["roll_times", "chosen_at"])
        games.append(game)
    return games


def assess() -> None:
    """The clock's fair-play sweep, as many times as it takes to assess every pending game."""
    while services.pending_games():
        services.assess_pending()


class ServerTable:
    """A simulated person's seat played through the real services (`fairplay.simulate.Table`): each move
    after its seconds on the test's clock, through play's actions; what the clock makes due meanwhile (the
    auto-commit, a turn's time running out, the computer's moves on a seat it keeps) applied by play's
    own settlement."""

    def __init__(self, game, user, clock):
        self.game, self.user, self.clock = game, user, clock
        self.actor = actor(user)
        self.turn_seconds = game.turn_seconds or RATED_TURN_SECONDS

    def _turn(self) -> Turn:
        return Turn.objects.filter(game=self.game, completed_at__isnull=True).select_related("player").first()

    @property
    def sheet(self):
        return self.game.players.get(user=self.user).sheet

    def start(self, number: int, round_: int) -> bool:
        turn = self._turn()
        assert turn.number == number and turn.player.user_id == self.user.pk
        return turn.player.stand_in

    def take_back(self) -> None:
        rooms.seat_take_back(game_id=self.game.pk, actor=self.actor)

    def _act(self, after: float, action) -> bool:
        """The move `after` seconds from now, or False if the turn was no longer the person's by then."""
        number = self._turn().number
        self.clock.advance(seconds=after)
        try:
            action(self._turn())
        except GameActionError:
            assert Turn.objects.get(game=self.game, number=number).completed_at is not None
            return False
        return True

    def roll(self, after: float, held: tuple[bool, ...]):
        def action(t):
            for die, (now, wanted) in enumerate(zip(t.held, held, strict=True), start=1):
                if t.dice and bool(now) != wanted:
                    play.turn_toggle_hold(
                        game_id=self.game.pk, actor=self.actor, turn=t.number, roll=t.rolls_used, die=die
                    )
            play.turn_roll(game_id=self.game.pk, actor=self.actor, turn=t.number, roll=t.rolls_used)

        if not self._act(after, action):
            return None
        return tuple(self._turn().dice)

    def choose(self, after: float, box) -> bool:
        def action(t):
            play.turn_choose_box(
                game_id=self.game.pk,
                actor=self.actor,
                turn=t.number,
                roll=t.rolls_used,
                box=box.name,
                write=True,
            )

        return self._act(after, action)

    def wait(self) -> None:
        """Let the auto-commit write the box, as the clock's loop would at its time."""
        self.clock.set(self._turn().auto_commit_at)
        play.game_settle(game_id=self.game.pk)

    def away(self) -> None:
        """Away for the turn: the computer plays it, at its pace on a seat it keeps, else when the turn's
        time runs out."""
        turn = self._turn()
        number = turn.number
        if turn.player.stand_in:
            while Turn.objects.get(game=self.game, number=number).completed_at is None:
                self.clock.set(self._turn().next_step_at)
                play.game_settle(game_id=self.game.pk)
            return
        self.clock.set(turn.deadline_at)
        play.game_settle(game_id=self.game.pk)


def play_people(game, seats: list, strategy, clock) -> None:
    """Play `game` to its end with simulated people at its seats: `seats` is [(user, Player, generator)]
    in seat order, each generator as `simulate.play_game` takes it (its person's stream is the same)."""
    tables = [ServerTable(game, user, clock) for user, _player, _rng in seats]
    people = [(player, *simulate.streams(rng)[1:]) for _user, player, rng in seats]
    for number in range(1, ROUNDS * len(seats) + 1):
        seat, round_ = (number - 1) % len(seats), (number - 1) // len(seats) + 1
        table = tables[seat]
        player, rng, absences = people[seat]
        kept = table.start(number, round_)
        away = bool(absences.random() < player.away)
        simulate.play_turn(strategy, player, rng, table, table.sheet, round_, kept=kept, away=away)
    game.refresh_from_db()
    assert game.is_finished
