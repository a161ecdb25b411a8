"""Tournaments for a test: one made and entered through the services (`tournament_of`), a round's game
played through play's own actions (`play_round`), one turn short of its end (`near_the_end`), and
results made up in the database for the tables (`made_up_round_game`)."""

from __future__ import annotations

import datetime as dt
from functools import cache

from django.utils import timezone

from dicegame import play
from dicegame.models import Game, Player, Turn
from dicegame.rules import dice
from dicegame.rules.scoring import Box, Scoresheet
from dicegame.strategy import computer
from dicegame.strategy.bot_games import bot_game
from tests.support.factories import GameFactory, PlayerFactory, actor
from tests.support.games import current, logged_turn
from tournaments import eligibility, rounds, services
from tournaments.models import Entry, Round, RoundGame, Tournament

HOUR = 3600


def seasoned(*users) -> None:
    """Give these accounts the history a rated tournament asks of its entrants
    (`eligibility.rated_entry_rule`), made in the database: joined long enough ago, and as many finished
    solo games as it asks, of 5 points each (under any real total, so a test's own totals stay the best).
    An account that has it already is left as it is."""
    rule = eligibility.rated_entry_rule()
    wanting = [user for user in users if eligibility.rated_entry_refusal(user)]
    if not wanting:
        return
    joined = timezone.now() - dt.timedelta(days=rule.days + 1)
    type(wanting[0]).objects.filter(pk__in=[u.pk for u in wanting]).update(date_joined=joined)
    seed = dice.new_seed()
    games = Game.objects.bulk_create(
        Game(
            kind=Game.Kind.SOLO,
            status=Game.Status.FINISHED,
            seed=seed,
            seed_commitment=dice.commitment(seed),
            finished_at=joined + dt.timedelta(minutes=k),
        )
        for _user in wanting
        for k in range(rule.games)
    )
    owners = [user for user in wanting for _k in range(rule.games)]
    Player.objects.bulk_create(
        Player(game=game, seat=0, user=user, name=user.username, boxes={"CHANCE": 5}, total=5, rank=1)
        for game, user in zip(games, owners, strict=True)
    )
    for user in wanting:
        user.date_joined = joined


def tournament_of(
    creator,
    *others,
    rounds: int = 2,
    window: int = HOUR,
    max_entrants: int = 8,
    access: str = Tournament.Access.INVITATION,
    rated: bool = True,
    starts_in: int = 0,
    name: str = "Friday dice",
) -> Tournament:
    """A tournament made by `creator` (its first entrant), the `others` entered by its link; a rated one
    gives them all the history it asks first (`seasoned`)."""
    if rated:
        seasoned(creator, *others)
    t = services.tournament_create(
        user=creator,
        name=name,
        rounds=rounds,
        window_seconds=window,
        max_entrants=max_entrants,
        access=access,
        rated=rated,
        starts_in=starts_in,
    )
    for other in others:
        services.entry_join(tournament_id=t.pk, user=other, token=t.invite_token)
    t.refresh_from_db()
    return t


def round_of(t: Tournament, number: int) -> Round:
    return Round.objects.get(tournament=t, number=number)


def play_turn(game_id: int, user, holds: tuple[tuple[int, ...], ...] = ((), ())) -> None:
    """Roll, hold the dice numbered in holds[0], roll, hold holds[1] (toggling), roll, write the best."""
    who = actor(user)
    t = current(game_id)
    play.turn_roll(game_id=game_id, actor=who, turn=t.number, roll=0)
    for k, hold in enumerate(holds, start=1):
        for die in hold:
            play.turn_toggle_hold(game_id=game_id, actor=who, turn=t.number, roll=k, die=die)
        play.turn_roll(game_id=game_id, actor=who, turn=t.number, roll=k)
    t = current(game_id)
    box = computer.auto_commit_box(t.player.sheet, tuple(t.dice))
    play.turn_choose_box(game_id=game_id, actor=who, turn=t.number, roll=3, box=box.name)
    play.turn_confirm(game_id=game_id, actor=who, turn=t.number, roll=3)


def play_round(t: Tournament, user, *, holds=((), ()), turns: int = 13) -> Game:
    """The user's game of the round open now: started (or resumed), `turns` turns played."""
    game = services.round_play(tournament_id=t.pk, user=user)
    for _ in range(turns):
        play_turn(game.pk, user, holds)
    return Game.objects.get(pk=game.pk)


def near_the_end(t: Tournament, user, strength: str = "medium") -> Game:
    """The user's game of the round open now, one confirm from its end (`to_the_last_turn`)."""
    return to_the_last_turn(services.round_play(tournament_id=t.pk, user=user), user, strength)


def to_the_last_turn(game: Game, user, strength: str = "medium") -> Game:
    """A solo game (a round's, or any) with its first 12 turns written as a bot of `strength` plays them
    on the game's own dice (rows made at once), the 13th rolled and its last box chosen: one confirm
    from the end."""
    seat = Player.objects.get(game=game)
    logs = _bot_logs(strength, game.seed, game.dice_namespace)
    sheet = Scoresheet()
    Turn.objects.filter(game=game).delete()
    now = timezone.now()
    rows = []
    for log in logs:
        sheet = sheet.place(Box[log.box], tuple(log.rolls[-1]["dice"]))
        rows.append(logged_turn(game, seat, log, completed_at=now))
    rows.append(Turn(game=game, player=seat, number=13, round=13, held=[False] * 5))
    Turn.objects.bulk_create(rows)
    seat.store_sheet(sheet)
    seat.save()
    who = actor(user)
    play.turn_roll(game_id=game.pk, actor=who, turn=13, roll=0)
    last = next(b for b in Box if b not in sheet.boxes)
    play.turn_choose_box(game_id=game.pk, actor=who, turn=13, roll=1, box=last.name)
    return Game.objects.get(pk=game.pk)


@cache
def _bot_logs(strength: str, seed: str, namespace: str | int) -> list:
    """A bot's first 12 turns on a round's dice: the same for every entrant of that strength."""
    return bot_game([strength], seed, namespace).logs[:12]


def made_up_round_game(entry: Entry, rnd: Round, total: int | None, *, finished: bool = True) -> RoundGame:
    """A round's game with this total, made in the database (no play): for the tables."""
    game = GameFactory(
        dice_key=rnd.dice_key,
        shared_until=rnd.closes_at,
        seed=rnd.seed,
        seed_commitment=rnd.commitment,
        status=Game.Status.FINISHED if finished else Game.Status.ACTIVE,
        finished_at=timezone.now() if finished else None,
    )
    PlayerFactory(game=game, user=entry.user, total=total or 0)
    return RoundGame.objects.create(
        entry=entry,
        round=rnd,
        game=game,
        total=total if finished else None,
        finished_at=timezone.now() if finished else None,
    )


def tournament_with_a_round_played(creator, other) -> Tournament:
    """A public tournament of two whose first round both have played (made-up totals): it has closed,
    with its results, and the second is open."""
    t = tournament_of(creator, other, rounds=2, max_entrants=2, access=Tournament.Access.PUBLIC)
    r1 = round_of(t, 1)
    for user, total in ((creator, 231), (other, 198)):
        made_up_round_game(Entry.objects.get(tournament=t, user=user), r1, total)
    rounds.round_settle(round_id=r1.pk)
    return t
