"""Fill the puzzle pool from every stored analysis of a finished game (idempotent: run it any time)."""

from django.core.management.base import BaseCommand

from puzzles import services
from puzzles.models import Puzzle


class Command(BaseCommand):
    help = "Add the puzzles of every finished game's stored analysis to the pool (idempotent)."

    def handle(self, *args, **options):
        games, added = services.build_pool()
        self.stdout.write(
            f"{games} analysed games read, {added} new sources, {Puzzle.objects.count()} puzzles"
        )
