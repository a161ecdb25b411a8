"""A TCP proxy that delays everything it forwards, both ways: PostgreSQL as if on another host.

    python bench/db_latency.py --listen PORT --to HOST:PORT --delay-ms 0.3

On this project's machine the database answers a statement in about 0.08 ms over loopback; in production
it usually runs on a host of its own, a network round trip away (0.2-1 ms within a data centre). A web
process's sockets waited on the database one statement at a time, so that distance limits how many
actions a process can serve however idle its cores are: `bench/live_games.py --db-delay-ms` puts the
servers (and the clock) behind this proxy to show it. A separate process, so its work counts in neither
the servers' CPU nor the bench client's.

Standard library only: two threads per connection, each reading, sleeping the delay, writing (the
database protocol answers each request before the next, so per-chunk delays add up to a round trip).
Prints "ready" once it listens.
"""

from __future__ import annotations

import argparse
import contextlib
import socket
import threading
import time


def forward(source: socket.socket, target: socket.socket, delay: float) -> None:
    try:
        while data := source.recv(65536):
            time.sleep(delay)
            target.sendall(data)
    except OSError:
        pass
    finally:
        for sock in (source, target):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--listen", type=int, required=True, help="loopback port to listen on")
    parser.add_argument("--to", required=True, help="HOST:PORT of the database")
    parser.add_argument("--delay-ms", type=float, required=True, help="added to each direction")
    args = parser.parse_args()
    host, port = args.to.rsplit(":", 1)
    delay = args.delay_ms / 1000
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", args.listen))
    listener.listen(1024)
    print("ready", flush=True)
    while True:
        client, _ = listener.accept()
        server = socket.create_connection((host, int(port)))
        for sock in (client, server):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for a, b in ((client, server), (server, client)):
            threading.Thread(target=forward, args=(a, b, delay), daemon=True).start()


if __name__ == "__main__":
    main()
