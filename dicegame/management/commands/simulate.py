"""Play solo games with a computer player and the server's own dice, and print the statistics."""

from django.core.management.base import BaseCommand, CommandError

from dicegame.strategy import STRENGTHS
from dicegame.strategy.progress import ProgressBar
from dicegame.strategy.simulate import seed_from_number, simulate


class Command(BaseCommand):
    help = "Simulate solo games of a bot (easy, medium or hard) and print mean, spread and rates."

    def add_arguments(self, parser):
        parser.add_argument("--strength", choices=STRENGTHS, default="hard")
        parser.add_argument("--games", type=int, default=1000)
        parser.add_argument(
            "--seed", type=int, help="a number, for a reproducible run (default: a fresh seed)"
        )

    def handle(self, *args, strength: str, games: int, seed: int | None, **options):
        if games < 1:
            raise CommandError("--games must be at least 1.")
        summary = simulate(
            strength,
            games,
            seed=None if seed is None else seed_from_number(seed),
            progress=ProgressBar(self.stderr, f"{strength} games"),
        )
        for line in summary.lines():
            self.stdout.write(line)
