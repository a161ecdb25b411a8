"""The benchmarks' server: one daphne process serving the project on a free loopback port."""

from __future__ import annotations

import http.client
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


class DaphneServer:
    """One daphne process with the given environment; start() waits for /healthz/, stop() ends it
    (by its own handle)."""

    def __init__(self, workdir: Path, env: dict[str, str]):
        self.port = free_port()
        self.env = env
        self.log_path = workdir / "daphne.log"
        self.process: subprocess.Popen | None = None

    def migrate(self) -> None:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--no-input", "-v0"], cwd=ROOT, env=self.env, check=True
        )

    def start(self, timeout: float = 60.0) -> None:
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "daphne",
                    "-b",
                    HOST,
                    "-p",
                    str(self.port),
                    "dicegame.asgi:application",
                ],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daphne exited with {self.process.returncode}:\n{self.log_tail()}")
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
        raise RuntimeError(f"daphne did not answer within {timeout:.0f} s:\n{self.log_tail()}")

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)

    def log_errors(self) -> str:
        """How many tracebacks daphne logged, with the last line of the first (the exception)."""
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return ""
        starts = [i for i, line in enumerate(lines) if line.startswith("Traceback")]
        if not starts:
            return ""
        first = next((line for line in lines[starts[0] + 1 :] if line and not line[0].isspace()), "?")
        return f"daphne logged {len(starts)} traceback(s); the first ends: {first[:200]}"

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"
