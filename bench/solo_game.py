"""Benchmark: the server round trip of the actions of whole solo games, against a bare view.

Starts its own daphne server on a fresh SQLite file, then plays solo games over loopback exactly as the
game page sends its actions (a solo game's page has no socket: the POST is its path): the session
cookie, the X-CSRFToken header of the page's <body hx-headers>, HX-Request and HX-Current-URL, Origin
and Referer, and the fields of the control's form as htmx sends them (`#game-form`'s token, `turn` and
`roll`). Per turn: roll, hold two dice, roll again, choose an enabled box (a zero is asked about first,
409, and the question's Yes writes it), confirm. After every action it times a GET /bench/bare/ (a view
that does nothing, through the whole middleware stack), so machine noise hits the actions and the
baseline alike. Prints the median and p90 per action kind and overall, and median(action) /
median(baseline); with --runs, each run's ratio and their median.

    .venv/bin/python bench/solo_game.py [--games N] [--runs R] [--max-seconds S] [--seed K]

Standard library only. Never waits for an auto-commit: every turn chooses a box itself.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import secrets
import shutil
import socket
import statistics
import string
import sys
import tempfile
import time
from collections import defaultdict
from html.parser import HTMLParser
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

from daphne_server import HOST, SETTINGS_MODULE, DaphneServer

TARGET_RATIO = 1.5  # at most
ROUNDS = 13
KINDS = ("new", "roll", "hold", "choose", "confirm")


# The baseline: a view that does nothing, through the whole middleware stack (routed for benches only).
BASELINE = "/bench/bare/"


# -- the server --------------------------------------------------------------------------------------


def server_env(sqlite_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("DATABASE_URL", None)  # always the temporary SQLite file
    env.update(
        DJANGO_SETTINGS_MODULE=SETTINGS_MODULE,
        SQLITE_PATH=str(sqlite_path),
        DEBUG="false",
        SECURE_SSL_REDIRECT="false",
        SECURE_COOKIES="false",
        ALLOWED_HOSTS=HOST,
        WHITENOISE_USE_FINDERS="true",
        # With DEBUG off the server refuses to start without a key (as production does).
        SECRET_KEY=env.get("SECRET_KEY") or "bench-" + secrets.token_urlsafe(32),
    )
    return env


# -- the client --------------------------------------------------------------------------------------


class BenchError(RuntimeError):
    pass


class Client:
    """One keep-alive connection with a cookie jar, timing each request from send to last byte."""

    def __init__(self, port: int):
        self.port = port
        self.cookies: dict[str, str] = {}
        self.conn: http.client.HTTPConnection | None = None

    def _connection(self) -> http.client.HTTPConnection:
        if self.conn is None:
            self.conn = http.client.HTTPConnection(HOST, self.port, timeout=30)
            self.conn.connect()
            self.conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return self.conn

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def request(
        self,
        method: str,
        path: str,
        *,
        fields: dict[str, str] | None = None,
        htmx: bool = False,
        page: str = "/",
        token: str = "",
    ) -> tuple[int, dict[str, str], str, float]:
        """Returns (status, headers, body, seconds). Reconnects once if the server closed the connection.
        `page` is the address of the page that sends the request, `token` its CSRF token (the page's
        <body hx-headers>; else the cookie's)."""
        headers = {"Host": f"{HOST}:{self.port}"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if method == "POST":
            body = urlencode(fields or {})
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["X-CSRFToken"] = token or self.cookies.get("csrftoken", "")
            headers["Origin"] = f"http://{HOST}:{self.port}"
            headers["Referer"] = f"http://{HOST}:{self.port}{page}"
        if htmx:
            headers["HX-Request"] = "true"
            headers["HX-Current-URL"] = f"http://{HOST}:{self.port}{page}"
        for attempt in (1, 2):
            conn = self._connection()
            try:
                started = time.perf_counter()
                conn.request(method, path, body=body, headers=headers)
                response = conn.getresponse()
                payload = response.read()
                elapsed = time.perf_counter() - started
                break
            except (http.client.RemoteDisconnected, ConnectionError, http.client.BadStatusLine):
                self.close()
                if attempt == 2:
                    raise
        response_headers = {k.lower(): v for k, v in response.getheaders()}
        for raw in response.headers.get_all("Set-Cookie") or []:
            jar = SimpleCookie()
            jar.load(raw)
            for name, morsel in jar.items():
                self.cookies[name] = morsel.value
        if response_headers.get("connection", "").lower() == "close":
            self.close()
        return response.status, response_headers, payload.decode("utf-8", errors="replace"), elapsed


class BoardParser(HTMLParser):
    """From a board update: the `#game-form` hidden fields, and which boxes are enabled."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.fields: dict[str, str] = {}
        self.enabled_boxes: list[str] = []
        self.boxes: list[str] = []
        self.question = ""  # the box a zero's question is asked at
        self.question_fields: dict[str, str] = {}  # its form's fields
        self._in_form = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr" and "data-zero-question" in a:
            self.question = a["data-zero-question"]
        if tag == "form" and a.get("id") == "game-form":
            self._in_form = True
        elif tag == "input" and self._in_form and a.get("type") == "hidden" and a.get("name"):
            self.fields[a["name"]] = a.get("value") or ""
        elif tag == "input" and self.question and a.get("type") == "hidden" and a.get("name"):
            self.question_fields.setdefault(a["name"], a.get("value") or "")
        elif tag == "button" and "data-box" in a:
            self.boxes.append(a["data-box"])
            if "disabled" not in a:
                self.enabled_boxes.append(a["data-box"])

    def handle_endtag(self, tag):
        if tag == "form":
            self._in_form = False


def parse_board(html: str) -> BoardParser:
    parser = BoardParser()
    parser.feed(html)
    parser.close()
    return parser


# -- the run -----------------------------------------------------------------------------------------


class Recorder:
    def __init__(self, client: Client):
        self.client = client
        self.actions: dict[str, list[float]] = defaultdict(list)
        self.baseline: list[float] = []

    def action(
        self, kind: str, path: str, fields: dict[str, str] | None = None, *, page: str = "/", token: str = ""
    ) -> tuple[int, dict[str, str], str]:
        status, headers, body, elapsed = self.client.request(
            "POST", path, fields=fields, htmx=True, page=page, token=token
        )
        if status != 200 and not (status == 409 and 'data-zero-question="' in body):
            raise BenchError(f"{kind} {path} {fields} answered {status}: {body[:500]}")
        self.actions[kind].append(elapsed)
        self.healthz()
        return status, headers, body

    def healthz(self) -> None:
        status, _headers, _body, elapsed = self.client.request("GET", BASELINE)
        if status != 200:
            raise BenchError(f"{BASELINE} answered {status}")
        self.baseline.append(elapsed)

    @property
    def action_count(self) -> int:
        return sum(len(v) for v in self.actions.values())


def ensure_csrf_cookie(client: Client) -> None:
    """The home page sets the csrftoken cookie. If it cannot be rendered, use a token of our own: Django
    accepts any well-formed secret that the cookie and the header agree on."""
    status, _headers, _body, _elapsed = client.request("GET", "/")
    if status == 200 and "csrftoken" in client.cookies:
        return
    print(
        f"warning: GET / answered {status} without a csrftoken cookie; using a client-made token "
        "(see the server log for why the page failed)",
        file=sys.stderr,
    )
    alphabet = string.ascii_letters + string.digits
    client.cookies["csrftoken"] = "".join(secrets.choice(alphabet) for _ in range(32))


HX_HEADERS_RE = re.compile(r"""hx-headers='\{"X-CSRFToken": "([^"]+)"\}'""")


def play_game(rec: Recorder, rng: random.Random, deadline: float) -> bool:
    """One solo game; False if the deadline stopped it before the end."""
    _status, headers, _body = rec.action("new", "/games/solo/")
    location = headers.get("hx-redirect", "")
    try:
        game_id = int(location.rstrip("/").rsplit("/", 1)[-1])
    except ValueError:
        raise BenchError(f"POST /games/solo/ gave no game to go to (HX-Redirect: {location!r})") from None
    base = f"/games/{game_id}"
    # The page the player acts on (not timed): its token for htmx's header, and its form's fields.
    status, _headers, page_html, _elapsed = rec.client.request("GET", f"{base}/")
    token = HX_HEADERS_RE.search(page_html)
    if status != 200 or token is None:
        raise BenchError(f"GET {base}/ answered {status} without the page's CSRF token")
    token = token.group(1)
    form = parse_board(page_html).fields

    def act(kind: str, path: str, fields: dict[str, str]) -> BoardParser | None:
        nonlocal form
        status, headers, body = rec.action(kind, path, fields, page=f"{base}/", token=token)
        if "hx-redirect" in headers:
            return None  # the game is over: htmx would load the finished page
        board = parse_board(body)
        if not {"turn", "roll"} <= board.fields.keys():
            raise BenchError(f"{kind} {path}: no #game-form fields in the answer")
        if status == 200:
            form = board.fields  # what the form holds now, as htmx sends it (its token is empty there)
        return board

    for turn in range(1, ROUNDS + 1):
        if time.monotonic() > deadline:
            return False
        if form["turn"] != str(turn):
            raise BenchError(f"expected turn {turn}, the board shows {form}")
        act("roll", f"{base}/roll/", form)
        for die in sorted(rng.sample(range(1, 6), 2)):
            act("hold", f"{base}/hold/{die}/", form)
        board = act("roll", f"{base}/roll/", form)
        if board is None or not board.enabled_boxes:
            raise BenchError(f"turn {turn}: no enabled box after the rolls")
        box = rng.choice(board.enabled_boxes)
        chosen = act("choose", f"{base}/choose/{box}/", form)
        if chosen is not None and chosen.question:
            # A zero while another box scores: asked at the box; the player's Yes (the question's own
            # form) writes it at once, so no confirm follows.
            fields = {**chosen.question_fields, "confirm_zero": "1", "write": "1"}
            finished = act("choose", f"{base}/choose/{box}/", fields) is None
        else:
            finished = act("confirm", f"{base}/confirm/", form) is None
        if finished != (turn == ROUNDS):
            raise BenchError(f"turn {turn}: the game {'ended' if finished else 'did not end'} unexpectedly")
    return True


def p90(values: list[float]) -> float:
    if len(values) < 2:
        return values[0]
    return statistics.quantiles(values, n=10, method="inclusive")[-1]


def report(rec: Recorder, games: int, elapsed: float) -> dict:
    base_median = statistics.median(rec.baseline)
    every = [t for kind in KINDS for t in rec.actions.get(kind, [])]
    rows = []
    for kind in (*KINDS, "all"):
        values = every if kind == "all" else rec.actions.get(kind, [])
        if not values:
            continue
        median = statistics.median(values)
        rows.append(
            {
                "kind": kind,
                "n": len(values),
                "median_ms": median * 1000,
                "p90_ms": p90(values) * 1000,
                "ratio": median / base_median,
            }
        )
    print(f"games: {games}   actions: {rec.action_count}   baseline requests: {len(rec.baseline)}")
    print(f"wall time: {elapsed:.1f} s")
    print(
        f"baseline GET {BASELINE}: median {base_median * 1000:.2f} ms, p90 {p90(rec.baseline) * 1000:.2f} ms"
    )
    print()
    print(f"{'action':<8} {'n':>5} {'median ms':>10} {'p90 ms':>9} {'median/baseline':>16}")
    for row in rows:
        kind, n, median, high, ratio = row["kind"], row["n"], row["median_ms"], row["p90_ms"], row["ratio"]
        print(f"{kind:<8} {n:>5} {median:>10.2f} {high:>9.2f} {ratio:>16.2f}")
    overall = rows[-1]["ratio"]
    verdict = "OK" if overall <= TARGET_RATIO else "OVER TARGET"
    print()
    print(f"overall median(action)/median(baseline) = {overall:.2f} (target <= {TARGET_RATIO}): {verdict}")
    return {
        "games": games,
        "actions": rec.action_count,
        "baseline_median_ms": base_median * 1000,
        "rows": rows,
        "overall_ratio": overall,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=5, help="solo games to play (default 5)")
    parser.add_argument("--runs", type=int, default=3, help="measure this many times: the median (default 3)")
    parser.add_argument(
        "--max-seconds", type=float, default=120.0, help="stop a run after this long (default 120)"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the client's choices (holds, boxes)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    if args.games < 1 or args.runs < 1:
        parser.error("--games and --runs must be at least 1")

    workdir = Path(tempfile.mkdtemp(prefix="penta-bench-"))
    server = DaphneServer(workdir, server_env(workdir / "bench.sqlite3"))
    client = Client(server.port)
    try:
        server.migrate()
        server.start()
        rng = random.Random(args.seed)
        ensure_csrf_cookie(client)
        for _ in range(5):  # wake the connection and the view up; not counted
            client.request("GET", BASELINE)
        runs = []
        for number in range(1, args.runs + 1):
            load = os.getloadavg()[0]
            print(f"\nrun {number} of {args.runs} (1-minute load average before it {load:.2f})")
            rec = Recorder(client)
            completed = 0
            run_deadline = time.monotonic() + args.max_seconds
            run_started = time.monotonic()
            for _ in range(args.games):
                if time.monotonic() > run_deadline or not play_game(rec, rng, run_deadline):
                    print(f"stopped at the {args.max_seconds:.0f} s limit", file=sys.stderr)
                    break
                completed += 1
            if not rec.action_count:
                print("no action was measured", file=sys.stderr)
                return 1
            figures = report(rec, completed, time.monotonic() - run_started)
            figures["load_before"] = load
            runs.append(figures)
        ratios = [r["overall_ratio"] for r in runs]
        middle = statistics.median(ratios)
        bare = statistics.median(r["baseline_median_ms"] for r in runs)
        print()
        print(
            f"the median of {len(runs)} run(s): median(action)/median(bare view) = {middle:.2f} "
            f"({', '.join(f'{x:.2f}' for x in ratios)}; target <= {TARGET_RATIO}): "
            f"{'OK' if middle <= TARGET_RATIO else 'OVER TARGET'}"
        )
        for number, r in enumerate(runs, 1):
            if r["baseline_median_ms"] > 1.5 * bare:
                print(
                    f"note: run {number}'s bare view was unusually slow ({r['baseline_median_ms']:.2f} ms "
                    f"against a median of {bare:.2f} ms over the runs)"
                )
        if args.json:
            args.json.write_text(json.dumps({"runs": runs, "median_ratio": middle}, indent=2))
        return 0
    except (BenchError, RuntimeError, OSError) as exc:
        print(f"bench failed: {exc}", file=sys.stderr)
        print(server.log_tail(), file=sys.stderr)
        return 1
    finally:
        client.close()
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
