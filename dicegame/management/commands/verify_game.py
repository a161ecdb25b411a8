"""Re-derive every roll of a finished game from its revealed seed and compare it with the log."""

from django.core.management.base import BaseCommand, CommandError

from dicegame.models import Game
from dicegame.rules import dice


class Command(BaseCommand):
    help = "Check a finished game's dice: the seed matches its commitment and every roll follows from it."

    def add_arguments(self, parser):
        parser.add_argument("game_id", type=int)

    def handle(self, *args, game_id: int, **options):
        game = Game.objects.filter(pk=game_id).first()
        if game is None:
            raise CommandError(f"There is no game {game_id}.")
        if not game.is_finished:
            raise CommandError(f"Game {game_id} is still in play: its seed is revealed when it is over.")
        secret_until = game.seed_secret_until
        if secret_until is not None and game.daily_date:
            raise CommandError(
                f"Game {game_id} is the daily challenge of {game.daily_date.isoformat()}: its seed deals "
                f"everyone's dice of that day, so it is revealed (and checked) only when the day ends, "
                f"at {secret_until.isoformat()}."
            )
        if secret_until is not None:
            raise CommandError(
                f"Game {game_id} is played on shared dice ({game.dice_namespace}): its seed deals other "
                f"players' dice too, so it is revealed (and checked) only when their window ends, "
                f"at {secret_until.isoformat()}."
            )
        problems = []
        if dice.commitment(game.seed) != game.seed_commitment:
            problems.append("the seed does not match the commitment shown at the start")
        turns = list(game.turns.order_by("number"))
        for turn in turns:
            problems += dice.check_turn(game.seed, game.dice_namespace, turn.number, turn.rolls)
        rolls = sum(len(t.rolls) for t in turns)
        if problems:
            for problem in problems:
                self.stderr.write(problem)
            raise CommandError(f"Game {game_id}: {len(problems)} problem(s) found.")
        self.stdout.write(
            f"Game {game_id}: seed {game.seed}\n"
            f"commitment {game.seed_commitment} matches; "
            f"all {rolls} rolls of {len(turns)} turns follow from the seed."
        )
