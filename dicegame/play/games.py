"""A game as a whole: creating one (solo, against the computer, or on a seed given, as the daily
challenge does), a person's choices about it (hurry the computer, hints, resign), and a guest's games
moving into the account they sign up for or log in to."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.services import profile_set_play_settings
from dicegame import events
from dicegame.actors import Actor
from dicegame.errors import GameActionError
from dicegame.labels import bot_name
from dicegame.models import Game, Player, Turn
from dicegame.play.clock import settle_locked
from dicegame.play.finish import end_as_it_stands
from dicegame.play.kernel import (
    PlaySettings,
    bump,
    check_active,
    current_turn,
    lock_for_actor,
    person_play_settings,
    seat_auto_commit,
)
from dicegame.play.local import local_games_claim
from dicegame.rules import dice
from dicegame.strategy import STRENGTHS

MAX_COMPUTER_OPPONENTS = 3


def game_create(
    *,
    actor: Actor,
    kind: str,
    bots: list[str] = (),
    seed: str | None = None,
    daily_date=None,
    dice_key: str = "",
    shared_until=None,
) -> Game:
    """A new game with its first turn: the actor in the first seat, then a computer player of each
    strength in `bots`. `seed` and `daily_date`: a daily challenge's game, on the day's seed drawn and
    committed to ahead (`daily.services.attempt_start`); `seed`, `dice_key` and `shared_until`: a game on
    dice shared with others until then (a tournament round's); otherwise a new secret seed."""
    if actor.user_id is None and not actor.guest_key:
        raise GameActionError(_("Start a game from the home page."), status=400)
    seed = seed or dice.new_seed()
    chosen = person_play_settings(actor)
    game = Game.objects.create(
        kind=kind,
        seed=seed,
        seed_commitment=dice.commitment(seed),
        daily_date=daily_date,
        dice_key=dice_key,
        shared_until=shared_until,
        fast_computer=chosen.fast_computer and kind == Game.Kind.COMPUTER,
    )
    human = Player.objects.create(
        game=game,
        seat=0,
        user_id=actor.user_id,
        guest_key="" if actor.user_id is not None else actor.guest_key,
        name=actor.name or _("Guest"),
        auto_commit_seconds=seat_auto_commit(game, chosen.auto_commit),
    )
    for seat, strength in enumerate(bots, start=1):
        Player.objects.create(
            game=game, seat=seat, bot_strength=strength, name=bot_name(strength, seat, len(bots))
        )
    Turn.objects.create(game=game, player=human, number=1, round=1, held=[False] * 5)
    return game


@transaction.atomic
def game_create_solo(*, actor: Actor) -> Game:
    return game_create(actor=actor, kind=Game.Kind.SOLO)


@transaction.atomic
def game_create_vs_computer(*, actor: Actor, strengths: list[str]) -> Game:
    """A game against 1 to 3 computer players, each of a strength in STRENGTHS; the person plays first."""
    if not 1 <= len(strengths) <= MAX_COMPUTER_OPPONENTS:
        raise GameActionError(
            _("A game against the computer has 1 to %(max)d computer opponents.")
            % {"max": MAX_COMPUTER_OPPONENTS},
            status=400,
        )
    unknown = [s for s in strengths if s not in STRENGTHS]
    if unknown:
        raise GameActionError(
            _("Unknown strength %(name)s: choose easy, medium, hard or winner.") % {"name": repr(unknown[0])},
            status=400,
        )
    return game_create(actor=actor, kind=Game.Kind.COMPUTER, bots=list(strengths))


@transaction.atomic
def game_hurry(*, game_id: int, actor: Actor) -> Game:
    """The person does not want to watch: the computer players finish their turns now."""
    game = lock_for_actor(game_id, actor)
    check_active(game)
    if not settle_locked(game, hurry=True):
        turn = current_turn(game)
        if turn is not None and not actor.owns(turn.player) and not turn.player.computer_plays:
            # Another person's turn ("It is your turn" said to the one waiting was wrong).
            raise GameActionError(
                _("It is %(name)s's turn: only the computer's moves can be sped up.")
                % {"name": turn.player.display_name}
            )
        raise GameActionError(_("It is your turn: the computer has nothing left to play."))
    bump(game)
    return game


@transaction.atomic
def game_set_hints(*, game_id: int, actor: Actor, on: bool) -> Game:
    """Switch the optimal-play hints on or off for the actor's seat. Never in games against people."""
    game = lock_for_actor(game_id, actor)
    if game.rated:
        raise GameActionError(_("Hints are off in rated games."))
    if game.kind == Game.Kind.FRIENDS:
        raise GameActionError(_("Hints are not available in games against other people."), status=403)
    if game.daily_date is not None:
        raise GameActionError(_("There are no hints in the daily challenge."))
    if game.on_shared_dice:
        raise GameActionError(_("There are no hints in a tournament game."))
    check_active(game)
    # Every seat the actor plays: one, or all the people's seats of a local game (hints for the game).
    for seat in (p for p in game.players.all() if actor.owns(p)):
        seat.hints = on
        seat.save(update_fields=["hints"])
    if on:
        game.hints_used = True
        game.save(update_fields=["hints_used"])
    bump(game)
    return game


@transaction.atomic
def game_resign(*, game_id: int, actor: Actor) -> Game:
    """The person gives up a solo game or one against the computer: it ends as it stands. The boxes
    written keep their points and the rest stay empty (the turn in play was never written and is
    dropped), so the total is what was really scored; the seat is marked `left_at` (shown as resigned
    in the history and the review) and ranks after the computer players. Games against friends are
    left instead (`dicegame.play.rooms.seat_leave`): the table plays on there."""
    game = lock_for_actor(game_id, actor)
    if game.kind == Game.Kind.FRIENDS:
        raise GameActionError(_("In a game against friends, leave the game instead."), status=400)
    if game.kind not in (Game.Kind.SOLO, Game.Kind.COMPUTER):
        # A local game is several people's: one of them can't end it for all.
        raise GameActionError(_("Only a solo game or one against the computer can be resigned."), status=400)
    check_active(game)
    players = list(game.players.order_by("seat"))
    leaving = [p for p in players if actor.owns(p)]
    end_as_it_stands(game, players, leaving=leaving, at=timezone.now())
    bump(game)
    return game


@transaction.atomic
def guest_games_claim(*, user: AbstractBaseUser, guest_key: str) -> int:
    """Give the guest's seats to the user; returns how many seats moved."""
    if not guest_key:
        return 0
    # The local games the guest created move too (the people's seats keep their typed names).
    local_games_claim(user=user, guest_key=guest_key)
    # What else the guest had (the daily challenge's attempts) follows them into the account.
    events.publish(events.GuestGamesClaimed(user, guest_key))
    return Player.objects.filter(guest_key=guest_key, user__isnull=True, bot_strength="").update(
        user=user, guest_key="", name=user.get_username()
    )


AUTO_COMMIT_FORM = {"3": None, "6": 6, "10": 10, "off": 0}  # 3 s is the site's rule: None follows it
COMPUTER_SPEED_FORM = {"normal": False, "fast": True}


@transaction.atomic
def play_settings_set(*, actor: Actor, auto_commit: str, computer_speed: str) -> PlaySettings:
    """A person's settings for play, from the settings form: the time to choose a box after the last roll
    ("3", "6", "10" seconds or "off") and the computer players' speed ("normal" or "fast"). Anything else
    is refused (400) and changes nothing. An account keeps them on its Profile (a guest's session keeps
    them: the caller's); either way they apply at once to the person's seats in games open or in play,
    each as far as its game allows (kernel.seat_auto_commit: off becomes 10 s where others wait or
    something is at stake), and to the pace of their games against the computer."""
    if auto_commit not in AUTO_COMMIT_FORM:
        raise GameActionError(
            _("The time to choose a box is 3, 6 or 10 seconds, or off: choose one of these."), status=400
        )
    if computer_speed not in COMPUTER_SPEED_FORM:
        raise GameActionError(_("The computer players' speed is normal or fast: choose one."), status=400)
    chosen = PlaySettings(AUTO_COMMIT_FORM[auto_commit], COMPUTER_SPEED_FORM[computer_speed])
    if actor.user_id is not None:
        profile_set_play_settings(
            user_id=actor.user_id, auto_commit=chosen.auto_commit, fast_computer=chosen.fast_computer
        )
        owned = Q(user_id=actor.user_id) | Q(controller_id=actor.user_id)
    elif actor.guest_key:
        owned = Q(user__isnull=True, bot_strength="", guest_key=actor.guest_key) | Q(
            controller__isnull=True, controller_guest_key=actor.guest_key
        )
    else:
        return chosen  # no game yet: the session keeps them for the first
    seats = list(
        Player.objects.filter(owned, game__status__in=[Game.Status.OPEN, Game.Status.ACTIVE]).select_related(
            "game"
        )
    )
    for seat in seats:
        seat.auto_commit_seconds = seat_auto_commit(seat.game, chosen.auto_commit)
    Player.objects.bulk_update(seats, ["auto_commit_seconds"])
    Game.objects.filter(
        pk__in={seat.game_id for seat in seats}, kind__in=[Game.Kind.COMPUTER, Game.Kind.LOCAL]
    ).update(fast_computer=chosen.fast_computer)
    return chosen
