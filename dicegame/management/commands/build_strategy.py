"""Solve the game afresh and write the strategy cache file that the game, the hints and the bots load;
with --win-tables, also the optional tables of final totals that playing to win needs."""

import time
from pathlib import Path

from django.core.management.base import BaseCommand

from dicegame.rules.scoring import Scoresheet
from dicegame.strategy import Strategy, outcomes, win_tables
from dicegame.strategy import cache as strategy_cache
from dicegame.strategy.progress import ProgressBar


class Command(BaseCommand):
    help = (
        "Build the optimal strategy table (a few seconds) and write its cache file; with --win-tables, "
        "also the tables of final totals for playing to win (about 5 minutes and 560 MB: run it niced)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--path", help=f"where to write it (default: ${strategy_cache.ENV_VAR} or var/strategy/)"
        )
        parser.add_argument(
            "--if-missing",
            action="store_true",
            help="do nothing if a valid cache file is already there (a damaged or stale one is rebuilt)",
        )
        parser.add_argument(
            "--win-tables",
            action="store_true",
            help="also build the distributions of final totals under the expected-total play, which the "
            "computer that plays to win and its hints use (optional: without them it plays for the total)",
        )
        parser.add_argument(
            "--win-tables-path", help=f"where to write them (default: ${win_tables.ENV_VAR} or var/strategy/)"
        )

    def handle(self, *args, path=None, if_missing=False, win_tables_path=None, **options):
        path = path or strategy_cache.default_path()
        strategy = self._strategy(path, if_missing)
        if options["win_tables"]:
            self._win_tables(strategy, Path(win_tables_path or win_tables.default_path()), if_missing)

    def _strategy(self, path, if_missing: bool) -> Strategy:
        if if_missing:
            try:
                values = strategy_cache.load(path)
            except strategy_cache.StaleCache as exc:
                self.stderr.write(f"Building the strategy table: {exc}")
            else:
                self.stdout.write(f"The strategy table is up to date: {path}")
                return Strategy(values)
        start = time.perf_counter()
        strategy = Strategy.build(progress=ProgressBar(self.stderr, "solving states"))
        built = time.perf_counter() - start
        strategy_cache.save(path, strategy.values)
        self.stdout.write(
            f"Built in {built:.1f} s; expected total from an empty sheet "
            f"{strategy.expected_total(Scoresheet()):.10f}; written to {path}"
        )
        return strategy

    def _win_tables(self, strategy: Strategy, path, if_missing: bool) -> None:
        if if_missing:
            try:
                found = win_tables.load(path)
            except strategy_cache.StaleCache as exc:
                self.stderr.write(f"Building the win tables: {exc}")
            else:
                if found.min_layer == 0:
                    self.stdout.write(f"The win tables are up to date: {path}")
                    return
        start = time.perf_counter()
        built = outcomes.build(strategy.values, progress=ProgressBar(self.stderr, "final totals"))
        seconds = time.perf_counter() - start
        win_tables.save(path, built)
        size = win_tables.data_path(path).stat().st_size + path.stat().st_size
        self.stdout.write(
            f"Win tables built in {seconds:.0f} s: {built.rows} distributions, {len(built.data)} totals, "
            f"{size / 1e6:.0f} MB; written to {path}"
        )
