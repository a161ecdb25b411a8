"""The server's clock: applies every overdue auto-commit, even in games no browser is looking at.

Run exactly one of these next to the web processes (any number of them is still safe: each game's
row lock makes an auto-commit happen once)."""

import time

from django.core.management.base import BaseCommand

from dicegame.live.clock import sweep


class Command(BaseCommand):
    help = "Apply overdue auto-commits, checking every --interval seconds (--once: one sweep and exit)."

    def add_arguments(self, parser):
        parser.add_argument("--interval", type=float, default=0.25)
        parser.add_argument("--once", action="store_true")

    def handle(self, *args, interval: float, once: bool, **options):
        while True:
            settled = sweep()
            if settled and options["verbosity"] > 1:
                self.stdout.write(f"auto-committed {settled} turn(s)")
            if once:
                self.stdout.write(f"{settled} overdue turn(s) settled")
                return
            time.sleep(interval)
