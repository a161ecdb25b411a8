"""The server's game clock as a process of its own: applies every overdue auto-commit, turn timer and
computer move, and expires idle rooms, even in games no browser is looking at.

Run exactly one of these next to the web processes (started with PENTA_CLOCK_IN_WEB=false); any number
of them is still safe: each game's row lock makes every change happen once.

It runs `dicegame.play.sweeper.run_clock` on one asyncio event loop, each sweep in the same worker thread
(one database connection), so the pushes a sweep sends after commit share this loop and its one
channel-layer connection. A database restart or a Redis outage does not stop it: it logs a warning,
retries with a growing pause, and logs when it has recovered. SIGTERM or SIGINT stops it after the
sweep in progress, with exit status 0."""

import asyncio
import signal

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.management.base import BaseCommand

from dicegame.play.sweeper import drop_connection, run_clocks, sweep, sweep_apart


class Command(BaseCommand):
    help = (
        "Run the game clock: apply what is due every --interval seconds (default PENTA_CLOCK_INTERVAL), "
        "surviving database and Redis outages (--once: one sweep and exit)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--interval", type=float, default=None)
        parser.add_argument("--once", action="store_true")

    def handle(self, *args, interval: float | None, once: bool, **options):
        if once:
            settled = sweep()
            sweep_apart(force=True)
            self.stdout.write(f"{settled} overdue turn(s) settled")
            return
        if interval is None:
            interval = settings.PENTA_CLOCK_INTERVAL
        asyncio.run(self._serve(interval, verbose=options["verbosity"] > 1))
        self.stdout.write("the game clock stopped")

    async def _serve(self, interval: float, *, verbose: bool) -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)

        def report(settled: int) -> None:
            if settled and verbose:
                self.stdout.write(f"settled {settled} game(s)")

        try:
            await run_clocks(interval, thread_sensitive=True, stop=stop, on_sweep=report)
        finally:
            # The sweeps' connection lives in their thread: close it there.
            await sync_to_async(drop_connection, thread_sensitive=True)()
