"""Fuzz of the online server: generated client messages over real WebSockets and the HTTP API.

Run: ``.venv/bin/python benchmarks/fuzz_server.py --messages 100000 [--url URL] [--json]``.

It starts one ``ginrummy serve`` on a free port with a fresh SQLite file (or uses ``--url``
with ``--db``), creates tables, seats two WebSocket clients at each, and sends Hypothesis-
generated messages of every client type (``hello``, ``action``, ``chat``, ``mute``,
``rematch``, ``next``, ``resync``, ``ping``): well-shaped ones, legal actions of the current
state, and malformed ones (wrong types, missing and unknown fields, integers past 2^64 and of
5,000 digits, NaN, deep nesting, lone surrogates and other unicode, binary frames, bytes that
are not JSON). Every batch ends with a ``ping``, whose ``pong`` shows the connection is still
served (after a frame over the 8 KiB limit it reads up to the server's 1009 close instead,
and the rest of that batch is not sent). Between batches it fuzzes the HTTP API (create, join,
get), and at the end it posts bodies that ``json.loads`` raises on (4,300-digit integers, deep
nesting). It reports counts: frames generated and sent, errors by code, closes by code, HTTP
answers by status, and **server errors** (1011 closes, 5xx answers, frames that are not JSON,
and the tracebacks in the server's log); then it reloads every table from the database and
checks that it replays to the version and status the server reports.

``tests/server/test_fuzz.py`` runs the same fuzz (these functions) with a smaller count.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import ClientConnection, connect

LEGAL = "<a legal action>"
"""A generated message that the sender replaces by a legal action of the latest state."""

NOTATIONS = ["stock", "take", "pass", "knock", "gin", "discard 5h", "discard Ks", "lay 5h",
             "knock 10s [As 2s 3s]", "discard", "Xx", "discard 10h", ""]
OPTION_NAMES = ["target", "players", "hand_size", "format", "gin_bonus", "undercut_bonus",
                "game_bonus", "max_reshuffles", "knock_limit", "payout_threshold", "big_gin",
                "stock_end", "upcard_offer", "bogus"]
PRESETS = ["classic", "playok", "arena", "eaai"]
HUGE_INTS = [2**53, 2**63, 2**64, -(2**64), 10**40]
"""Integers past JSON's exact range and orjson's 64-bit limit."""


# --------------------------------------------------------------------------- strategies
def junk() -> st.SearchStrategy[Any]:
    """A JSON value of any type, often the wrong one."""
    scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70),
                        st.sampled_from(HUGE_INTS), st.floats(allow_nan=True),
                        st.text(max_size=40), st.just("\ud800"))
    return st.recursive(scalars, lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
        max_leaves=6)


def maybe(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly a good value of a field, sometimes junk."""
    return st.one_of(good, good, good, junk())


EXTRA = {"extra": junk(), "Type": junk(), "": junk()}


def message_dicts() -> st.SearchStrategy[dict[str, Any]]:
    """Messages of every client type, their fields good or bad, some missing, some unknown."""
    def kind(name: str, required: dict[str, Any], optional: dict[str, Any]) -> Any:
        return st.fixed_dictionaries({"type": maybe(st.just(name)), **required},
                                     optional={**optional, **EXTRA})

    ids = st.text(min_size=1, max_size=64)
    return st.one_of(
        kind("hello", {"protocol": maybe(st.sampled_from([1, 2, 3]))},
             {"token": maybe(st.none() | st.text(max_size=40)),
              "invite": maybe(st.none() | st.text(max_size=40)),
              "since": maybe(st.integers(0, 200))}),
        kind("action", {"id": maybe(ids), "version": maybe(st.integers(0, 300)),
                        "action": maybe(st.sampled_from(NOTATIONS) | st.text(max_size=40))}, {}),
        kind("chat", {"text": maybe(st.text(max_size=300))}, {}),
        kind("mute", {"seat": maybe(st.none() | st.integers(0, 4)),
                      "muted": maybe(st.booleans())}, {}),
        *(kind(name, {}, {}) for name in ("rematch", "next", "resync", "ping")),
        st.fixed_dictionaries({"type": junk()}, optional=EXTRA),
    )


def _digits(n: int, negative: bool) -> str:
    return ("-" if negative else "") + "9" * n


def hostile_texts() -> st.SearchStrategy[str]:
    """Frames that are no ordinary JSON: long integer literals, NaN, deep nesting, cut text."""
    templates = ['{"type":"action","id":"h","version":%s,"action":"stock"}',
                 '{"type":"hello","protocol":%s}', '{"type":"mute","seat":%s,"muted":true}',
                 '{"type":"chat","text":%s}', "%s"]
    number = st.one_of(st.builds(_digits, st.integers(17, 6000), st.booleans()),
                       st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "-0", "1.0",
                                        "0x10", "01", "1e5"]))
    nesting = st.builds(lambda n, open_: open_ * n + ("]" if open_ == "[" else "}") * n
                        if open_ == "[" else '{"a":' * n + "1" + "}" * n,
                        st.integers(1, 3500), st.sampled_from(["[", "{"]))
    values = st.one_of(number, nesting)
    whole = st.builds(lambda t, v: t % v, st.sampled_from(templates), values)
    cut = st.builds(lambda d, k: json.dumps(d)[:k], message_dicts(), st.integers(0, 30))
    return st.one_of(whole, cut, st.text(max_size=200), st.just(""), st.just("null"),
                     st.just('"\\ud800"'))


def _encode(message: dict[str, Any], ascii_: bool) -> str:
    text = json.dumps(message, ensure_ascii=ascii_)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate goes as its \ud800 escape
        return json.dumps(message)
    return text


def frames() -> st.SearchStrategy[str | bytes]:
    """One client frame: mostly JSON messages (some legal actions), some hostile text or bytes."""
    encoded = st.builds(_encode, message_dicts(), st.booleans())
    return st.one_of(encoded, encoded, encoded, st.just(LEGAL), st.just(LEGAL),
                     hostile_texts(), st.binary(max_size=40))


def http_requests() -> st.SearchStrategy[tuple[str, str, Any]]:
    """``(method, path kind, body)``: create, join or get, with good and bad bodies."""
    create = st.fixed_dictionaries(
        {"nickname": maybe(st.text(min_size=1, max_size=24))},
        optional={"name": maybe(st.text(max_size=40)),
                  "preset": maybe(st.sampled_from(PRESETS) | st.text(max_size=10)),
                  "options": maybe(st.dictionaries(st.sampled_from(OPTION_NAMES), maybe(
                      st.integers(-5, 20_000) | st.sampled_from(HUGE_INTS)), max_size=3)),
                  "players": maybe(st.integers(0, 5) | st.sampled_from(HUGE_INTS)),
                  "bots": maybe(st.dictionaries(st.sampled_from(["1", "2", "0", "9"]),
                                                st.sampled_from(["simple", "random", "x"]),
                                                max_size=2)),
                  "public": maybe(st.booleans()),
                  "clock_seconds": maybe(st.floats(-1, 10**6) | st.sampled_from([0, 30])),
                  "pool_chips": maybe(st.none() | st.integers(0, 10**10)), **EXTRA})
    join = st.fixed_dictionaries({"nickname": maybe(st.text(min_size=1, max_size=24))},
                                 optional={"seat": maybe(st.none() | st.integers(0, 5)),
                                           "invite": maybe(st.text(max_size=20)), **EXTRA})
    return st.one_of(st.tuples(st.just("POST"), st.just("create"), create),
                     st.tuples(st.just("POST"), st.just("join"), join),
                     st.tuples(st.just("POST"), st.just("create"), junk()),
                     st.tuples(st.just("GET"), st.sampled_from(["table", "bogus"]), st.none()))


def http_parser_bodies() -> st.SearchStrategy[str]:
    """Raw bodies the standard ``json.loads`` raises on with something else than a
    ``JSONDecodeError`` (ValueError for a 4,300-digit integer, RecursionError for deep
    nesting): the HTTP API must read them with :func:`ginrummy.server.core.jsontext.loads`."""
    return st.one_of(
        st.builds(lambda n: '{"nickname":"Ann","players":%s}' % ("9" * n), st.integers(4301, 9000)),
        st.builds(lambda n: "[" * n + "]" * n, st.integers(1500, 7000)))


# --------------------------------------------------------------------------- the sender
@dataclass
class Stats:
    """What the fuzz sent and what came back."""

    messages: int = 0
    batches: int = 0
    frames_received: int = 0
    acks: int = 0
    """Actions the server accepted (a ``state`` carrying an ``ack``)."""
    errors: Counter[str] = field(default_factory=Counter)
    closes: Counter[str] = field(default_factory=Counter)
    http: Counter[str] = field(default_factory=Counter)
    server_errors: list[str] = field(default_factory=list)
    """1011 closes, 5xx answers, frames that are not JSON, pings with no pong."""
    tables: set[str] = field(default_factory=set)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {"messages": self.messages, "batches": self.batches,
                "frames_received": self.frames_received, "acks": self.acks,
                "errors": dict(self.errors),
                "closes": dict(self.closes), "http": dict(self.http),
                "server_errors": len(self.server_errors),
                "server_error_samples": self.server_errors[:10], "tables": len(self.tables)}


SERVER_ERROR_CLOSES = {1011}
FRAME_LIMIT = 8192
"""The server's default frame limit: a longer frame is followed by its close (1009), which the
sender waits for instead of writing on into a closing connection."""

FUZZ_SETTINGS: dict[str, Any] = {
    "messages_per_window": 10**9, "chats_per_window": 10**9, "bot_delay_ms": 0,
    "between_hands_seconds": 0, "tables_per_address": 10**9, "connections_per_address": 10**9,
    "max_connections": 10**9}
"""Limits raised so that the fuzz reaches the message handlers instead of the flood limits
(settings a server does not have are left out)."""
FUZZ_ENV = {f"GINRUMMY_{name.upper()}": str(value) for name, value in FUZZ_SETTINGS.items()}


class Seat:
    """One WebSocket client at a table (reconnects after any close)."""

    def __init__(self, base: str, table_id: str, token: str | None, origin: str,
                 stats: Stats) -> None:
        self.url = base.replace("http://", "ws://") + f"/ws/tables/{table_id}"
        self.token, self.origin, self.stats = token, origin, stats
        self.ws: ClientConnection | None = None
        self.state: dict[str, Any] | None = None

    def _open(self) -> ClientConnection | None:
        options: dict[str, Any] = {"origin": self.origin, "open_timeout": 10,
                                   "max_size": 2**22, "proxy": None}
        try:
            try:
                ws = connect(self.url, legacy=True, **options)
            except TypeError:  # websockets before 16 has no ``legacy`` flag
                ws = connect(self.url, **options)
        except (OSError, InvalidHandshake, TimeoutError) as exc:
            self.stats.closes[f"refused {type(exc).__name__}"] += 1
            return None
        ws.send(json.dumps({"type": "hello", "protocol": 2, "token": self.token}))
        self.ws = ws
        return ws

    def _receive(self, ws: ClientConnection, timeout: float) -> dict[str, Any] | None:
        text = ws.recv(timeout=timeout)
        self.stats.frames_received += 1
        try:
            message = json.loads(text)
        except (ValueError, TypeError):
            self.stats.server_errors.append(f"a frame that is not JSON: {str(text)[:80]!r}")
            return None
        if not isinstance(message, dict):
            self.stats.server_errors.append(f"a frame that is no object: {str(text)[:80]!r}")
            return None
        if message.get("type") == "error":
            self.stats.errors[str(message.get("code"))] += 1
        elif message.get("type") == "state":
            self.state = message
            self.stats.acks += "ack" in message
        return message

    def _closed(self, exc: ConnectionClosed) -> None:
        code = exc.rcvd.code if exc.rcvd is not None else None
        self.stats.closes[str(code)] += 1
        if code in SERVER_ERROR_CLOSES:
            reason = exc.rcvd.reason if exc.rcvd is not None else ""
            self.stats.server_errors.append(f"close {code} {reason}")
        self.ws = None

    def _legal(self, rng: random.Random) -> str:
        state = self.state or {}
        legal = state.get("legal") or ["stock"]
        return json.dumps({"type": "action", "id": uuid.uuid4().hex[:12],
                           "version": state.get("version", 0), "action": rng.choice(legal)})

    def batch(self, frames_: list[str | bytes], rng: random.Random) -> None:
        """Send the frames, then a ping; read until its pong (or a close)."""
        ws = self.ws or self._open()
        if ws is None:
            return
        self.stats.batches += 1
        try:
            for frame in frames_:
                if frame == LEGAL:  # the latest state first: the other seat may have moved
                    with contextlib.suppress(TimeoutError):
                        while True:
                            self._receive(ws, 0)
                ws.send(self._legal(rng) if frame == LEGAL else frame)
                self.stats.messages += 1
                if frame == LEGAL:  # as a client does: its action's answer before the next
                    self._answer(ws)
                if len(frame.encode("utf-8") if isinstance(frame, str) else frame) > FRAME_LIMIT:
                    while True:  # the server closes (1009): read up to its close frame
                        self._receive(ws, 20)
                with contextlib.suppress(TimeoutError):
                    while True:  # read what has arrived, so the send queue never fills
                        self._receive(ws, 0)
            ws.send('{"type":"ping"}')
            deadline = time.monotonic() + 20
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    self.stats.server_errors.append("a ping with no pong in 20 s")
                    ws.close()
                    self.ws = None
                    return
                message = self._receive(ws, left)
                if message is not None and message.get("type") == "pong":
                    return
        except ConnectionClosed as exc:
            self._closed(exc)
        except TimeoutError:
            self.stats.server_errors.append("a ping with no pong in 20 s")
            ws.close()
            self.ws = None

    def _answer(self, ws: ClientConnection) -> None:
        """Read up to an action's answer (an error, or the state that carries its ack)."""
        deadline = time.monotonic() + 5
        while (left := deadline - time.monotonic()) > 0:
            message = self._receive(ws, left)
            if message is not None and (message.get("type") in ("error", "ack") or (
                    message.get("type") == "state" and "ack" in message)):
                return

    def close(self) -> None:
        """Close the connection, if open."""
        if self.ws is not None:
            with contextlib.suppress(Exception):
                self.ws.close()
            self.ws = None


class Fuzzer:
    """Tables, their seats, and the HTTP client of one fuzz run against ``base``."""

    def __init__(self, base: str, origin: str | None = None, tables: int = 2,
                 seed: int = 0) -> None:
        self.base = base
        self.origin = origin or base
        self.stats = Stats()
        self.rng = random.Random(seed)
        self.http = httpx.Client(base_url=base, timeout=30, trust_env=False,
                                 headers={"Origin": self.origin})
        self.seats: list[Seat] = []
        for _ in range(tables):
            created = self.post("/api/tables", {"nickname": "Ann"})
            assert created.status_code == 201, created.text
            table_id = created.json()["table_id"]
            joined = self.post(f"/api/tables/{table_id}/join", {"nickname": "Bob"})
            assert joined.status_code == 200, joined.text
            self.stats.tables.add(table_id)
            for token in (created.json()["token"], joined.json()["token"]):
                self.seats.append(Seat(base, table_id, token, self.origin, self.stats))
        self.seats.append(Seat(base, table_id, None, self.origin, self.stats))  # a spectator

    def post(self, path: str, body: Any, raw: str | None = None) -> httpx.Response:
        """A POST of ``body`` as JSON (or of the ``raw`` text as ``application/json``)."""
        if raw is not None:
            return self.http.post(path, content=raw.encode("utf-8", "surrogatepass"),
                                  headers={"Content-Type": "application/json"})
        return self.http.post(path, content=json.dumps(body).encode("utf-8", "surrogatepass"),
                              headers={"Content-Type": "application/json"})

    def send_frames(self, frames_: list[str | bytes]) -> None:
        """One batch of frames on one seat's connection (a random seat)."""
        self.rng.choice(self.seats).batch(frames_, self.rng)

    def request(self, method: str, kind: str, body: Any, raw: str | None = None) -> None:
        """One HTTP request; a 5xx is a server error."""
        table_id = self.rng.choice(sorted(self.stats.tables))
        try:
            if method == "GET":
                path = f"/api/tables/{table_id if kind == 'table' else 'nO-such_id%00'}"
                answer = self.http.get(path)
            else:
                path = "/api/tables" if kind == "create" else f"/api/tables/{table_id}/join"
                answer = self.post(path, body, raw)
        except httpx.HTTPError as exc:
            self.stats.server_errors.append(f"HTTP {kind}: {type(exc).__name__}")
            return
        self.stats.http[str(answer.status_code)] += 1
        if answer.status_code >= 500:
            self.stats.server_errors.append(f"HTTP {answer.status_code} on {kind}: "
                                            f"{answer.text[:80]}")
        elif answer.status_code == 201 and kind == "create":
            self.stats.tables.add(answer.json()["table_id"])

    def close(self) -> None:
        """Close every connection and the HTTP client."""
        for seat in self.seats:
            seat.close()
        self.http.close()


def replay_mismatches(db: str, versions: Callable[[str], dict[str, Any] | None],
                      table_ids: set[str], settle: float = 10.0) -> list[str]:
    """Every table reloaded from the database must replay (``GameTable.from_stored``) to the
    version and status that ``versions(id)`` (the running server) reports; a table still moving
    is read again until ``settle`` seconds have passed."""
    from ginrummy.server.play.table import GameTable
    from ginrummy.storage import Repository, open_engine

    engine = open_engine(db)
    problems: list[str] = []
    try:
        repository = Repository(engine)
        for table_id in sorted(table_ids):
            deadline = time.monotonic() + settle
            while True:
                live = versions(table_id)
                stored = repository.load_table(table_id)
                if stored is None:
                    problem = "not stored"
                else:
                    try:
                        replayed = GameTable.from_stored(stored)
                    except Exception as exc:  # any failure to replay is the finding
                        problem = f"does not replay: {exc!r}"
                    else:
                        got = {"version": replayed.version, "status": str(replayed.status)}
                        want = None if live is None else {k: live.get(k) for k in got}
                        problem = "" if want in (None, got) else f"replays to {got}, live {want}"
                if not problem or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
            if problem:
                problems.append(f"{table_id}: {problem}")
    finally:
        engine.dispose()
    return problems


def generated(strategy: st.SearchStrategy[Any], count: int, seed: int) -> Iterator[Any]:
    """``count`` examples of a strategy, reproducibly from ``seed`` (outside a test)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hseed

    out: list[Any] = []

    @hseed(seed)
    @settings(max_examples=count, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(value: Any) -> None:
        out.append(value)

    collect()
    yield from out


# --------------------------------------------------------------------------- the script
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=20, help="frames per batch (then a ping)")
    parser.add_argument("--http-every", type=int, default=5,
                        help="one HTTP request every N batches")
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--url", help="a running server (with --db, its database)")
    parser.add_argument("--db", help="the running server's database URL")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from load_server import kill_server, start_server

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ginrummy-fuzz-") as folder:
        server = None
        if args.url:
            base, db = args.url.rstrip("/"), args.db
        else:
            db = f"sqlite:///{Path(folder) / 'fuzz.db'}"
            server = start_server(db, Path(folder), [], env={**FUZZ_ENV, **os.environ})
            base = server.url
        try:
            report = run(base, db, args)
        finally:
            if server is not None:
                kill_server(server)
        if server is not None and server.log_path is not None:
            log = server.log_path.read_text(errors="replace")
            report["server_log_tracebacks"] = log.count("Traceback")
    report["seconds"] = round(time.monotonic() - started, 1)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for key, value in report.items():
            print(f"{key:>22}: {value}")
    clean = report["server_errors"] == 0 and not report.get("server_log_tracebacks")
    return 0 if clean and not report["replay_mismatches"] else 1


def shuffled(batch: list[str | bytes], rng: random.Random) -> list[str | bytes]:
    """The batch in a random order (the hostile frame anywhere in it)."""
    rng.shuffle(batch)
    return batch


def run(base: str, db: str | None, args: argparse.Namespace) -> dict[str, Any]:
    """The fuzz against a running server; the report as a dict."""
    fuzzer = Fuzzer(base, tables=args.tables, seed=args.seed)
    batches = max(1, args.messages // args.batch)
    # whole batches are the examples: Hypothesis does not repeat an example, so one frame an
    # example would give the constant ``LEGAL`` once
    batch_lists = generated(st.lists(frames(), min_size=args.batch - 1,
                                     max_size=args.batch - 1), batches, args.seed)
    # and one hostile frame a batch, generated alone (inside lists Hypothesis keeps them small)
    hostile = generated(hostile_texts(), batches, args.seed + 3)
    requests = generated(http_requests(), batches // args.http_every + 1, args.seed + 1)
    parser_bodies = generated(http_parser_bodies(), 20, args.seed + 2)
    try:
        for number in range(batches):
            batch = [*next(batch_lists, []), next(hostile, "{}")]
            fuzzer.send_frames(shuffled(batch, fuzzer.rng))
            if number % args.http_every == 0:
                method, kind, body = next(requests, ("GET", "table", None))
                fuzzer.request(method, kind, body)
        for raw in parser_bodies:
            fuzzer.request("POST", "create", None, raw)
    finally:
        fuzzer.close()

    def live(table_id: str) -> dict[str, Any] | None:
        answer = httpx.get(f"{base}/api/tables/{table_id}", timeout=10, trust_env=False)
        return dict(answer.json()) if answer.status_code == 200 else None

    report = {"generated_frames": batches * args.batch, **fuzzer.stats.to_dict()}
    report["replay_mismatches"] = (replay_mismatches(db, live, fuzzer.stats.tables)
                                   if db else ["no --db: not checked"])
    return report


if __name__ == "__main__":
    raise SystemExit(main())
