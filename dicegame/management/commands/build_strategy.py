"""Solve the game afresh and write the strategy cache file that the game, the hints and the bots load."""

import time

from django.core.management.base import BaseCommand

from dicegame.rules.scoring import Scoresheet
from dicegame.strategy import Strategy
from dicegame.strategy import cache as strategy_cache
from dicegame.strategy.progress import ProgressBar


class Command(BaseCommand):
    help = "Build the optimal strategy table (a few seconds) and write its cache file."

    def add_arguments(self, parser):
        parser.add_argument(
            "--path", help=f"where to write it (default: ${strategy_cache.ENV_VAR} or var/strategy/)"
        )
        parser.add_argument(
            "--if-missing",
            action="store_true",
            help="do nothing if a valid cache file is already there (a damaged or stale one is rebuilt)",
        )

    def handle(self, *args, path=None, if_missing=False, **options):
        path = path or strategy_cache.default_path()
        if if_missing:
            try:
                strategy_cache.load(path)
            except strategy_cache.StaleCache as exc:
                self.stderr.write(f"Building the strategy table: {exc}")
            else:
                self.stdout.write(f"The strategy table is up to date: {path}")
                return
        start = time.perf_counter()
        strategy = Strategy.build(progress=ProgressBar(self.stderr, "solving states"))
        built = time.perf_counter() - start
        strategy_cache.save(path, strategy.values)
        self.stdout.write(
            f"Built in {built:.1f} s; expected total from an empty sheet "
            f"{strategy.expected_total(Scoresheet()):.10f}; written to {path}"
        )
