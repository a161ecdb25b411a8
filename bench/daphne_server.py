"""The benchmarks' servers: daphne processes serving the project on free loopback ports, and the game
clock (`manage.py run_timers`) as a process of its own."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
# The project's configuration package: `penta/` since the layers were drawn; before, it lived inside the
# game app. The benches also run from a checkout of an older commit (to compare back to back).
CONFIG = "penta" if (ROOT / "penta" / "settings.py").exists() else "dicegame"
# The benches' own server routes the bare baselines (bench/settings.py, bench/asgi.py); before, a
# setting of the site's (PENTA_BENCH_ECHO) routed them.
BENCH_SERVER = (ROOT / "bench" / "asgi.py").exists()
SETTINGS_MODULE = "bench.settings" if BENCH_SERVER else f"{CONFIG}.settings"
ASGI_APP = "bench.asgi:application" if BENCH_SERVER else f"{CONFIG}.asgi:application"


def default_server_module() -> str:
    """The production entry point (daphne's own command line with WebSocket compression accepted), when
    the project has it; else daphne itself."""
    for module, path in (
        ("penta.server", "penta/server.py"),
        ("live.server", "live/server.py"),
    ):
        if (ROOT / path).exists():
            return module
    return "daphne"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def process_cpu(pid: int | None) -> float:
    """User + system CPU seconds of a process so far (Linux /proc), NaN if unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, TypeError):
        return float("nan")


class ServerProcess:
    """A child process of the benchmark with its own log file; stop() ends it by its own handle."""

    name = "server"

    def __init__(self, workdir: Path, env: dict[str, str], name: str | None = None):
        self.env = env
        if name:
            self.name = name
        self.log_path = workdir / f"{self.name}.log"
        self.process: subprocess.Popen | None = None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def cpu(self) -> float:
        return process_cpu(self.pid)

    def _spawn(self, argv: list[str]) -> None:
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, *argv], cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT
            )

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log_errors(self) -> str:
        """How many tracebacks the process logged, with the last line of the first (the exception)."""
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return ""
        starts = [i for i, line in enumerate(lines) if line.startswith("Traceback")]
        if not starts:
            return ""
        first = next((line for line in lines[starts[0] + 1 :] if line and not line[0].isspace()), "?")
        return f"{self.name} logged {len(starts)} traceback(s); the first ends: {first[:200]}"

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


class DaphneServer(ServerProcess):
    """One daphne process with the given environment, run as `python -m <module>` (default: the
    production entry point, else daphne); start() waits for /healthz/."""

    name = "daphne"

    def __init__(
        self, workdir: Path, env: dict[str, str], name: str | None = None, module: str | None = None
    ):
        super().__init__(workdir, env, name)
        self.port = free_port()
        self.module = module or default_server_module()

    def migrate(self) -> None:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--no-input", "-v0"], cwd=ROOT, env=self.env, check=True
        )

    def start(self, timeout: float = 60.0) -> None:
        self._spawn(["-m", self.module, "-b", HOST, "-p", str(self.port), ASGI_APP])
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                conn = http.client.HTTPConnection(HOST, self.port, timeout=2)
                conn.request("GET", "/healthz/")
                ok = conn.getresponse().status == 200
                conn.close()
                if ok:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"{self.name} did not answer within {timeout:.0f} s:\n{self.log_tail()}")


class ClockProcess(ServerProcess):
    """`manage.py run_timers`: the one game clock of a production set-up. start() returns once the
    process has run for `settle` seconds without exiting (it has no port to ask)."""

    name = "run_timers"

    def start(self, settle: float = 3.0) -> None:
        self._spawn(["manage.py", "run_timers"])
        deadline = time.monotonic() + settle
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}:\n{self.log_tail()}")
            time.sleep(0.2)
