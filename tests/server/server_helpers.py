"""A live server in a thread (the real uvicorn configuration) and WebSocket test clients."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from websockets.sync.client import ClientConnection, connect

from ginrummy.cards import parse_card
from ginrummy.cli.serve import uvicorn_config
from ginrummy.engine import Hand
from ginrummy.server import Settings, create_app
from ginrummy.server.core.delta import apply_delta
from ginrummy.server.play.table import GameTable
from ginrummy.storage import Repository, open_engine

CARD_RE = re.compile(r"(?<![A-Za-z0-9])(10|[2-9TJQKA])([shdc])(?![A-Za-z0-9])")


@dataclass
class LiveServer:
    """A running server: its URLs, settings and (same process) app state."""

    base: str
    settings: Settings
    app: Any
    thread: threading.Thread
    server: uvicorn.Server

    @property
    def ws_base(self) -> str:
        """``ws://host:port``."""
        return self.base.replace("http://", "ws://")

    @property
    def lobby(self) -> Any:
        """The lobby object of the running app."""
        return self.app.state.server.lobby

    _http: httpx.Client | None = None

    def http(self) -> httpx.Client:
        """The HTTP client of the API (one per server: building one costs ~0.1 s)."""
        if self._http is None:
            self._http = httpx.Client(base_url=self.base, timeout=30, trust_env=False,
                                      headers={"Origin": self.base})
        return _Borrowed(self._http)  # type: ignore[return-value]

    def create(self, **body: Any) -> dict[str, Any]:
        """``POST /api/tables``; asserts 201."""
        body.setdefault("nickname", "Ann")
        with self.http() as client:
            answer = client.post("/api/tables", json=body)
        assert answer.status_code == 201, answer.text
        return dict(answer.json())

    def join(self, table_id: str, **body: Any) -> dict[str, Any]:
        """``POST /api/tables/{id}/join``; asserts 200."""
        body.setdefault("nickname", "Bob")
        with self.http() as client:
            answer = client.post(f"/api/tables/{table_id}/join", json=body)
        assert answer.status_code == 200, answer.text
        return dict(answer.json())

    def stored_table(self, table_id: str) -> Any:
        """The table as stored in the database right now."""
        engine = open_engine(self.settings.db)
        try:
            return Repository(engine).load_table(table_id)
        finally:
            engine.dispose()


class _Borrowed:
    """A shared client usable in ``with`` blocks without being closed by them."""

    def __init__(self, client: httpx.Client) -> None:
        self._client = client

    def __enter__(self) -> httpx.Client:
        return self._client

    def __exit__(self, *_exc: object) -> None:
        return None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def live_server(tmp_path: Path, **settings: Any) -> Iterator[LiveServer]:
    """Run ``create_app`` under uvicorn in a thread with a temporary SQLite database."""
    values: dict[str, Any] = dict(db=f"sqlite:///{tmp_path / 'test.db'}", bot_delay_ms=0,
                                  between_hands_seconds=0, log_level="warning")
    # the tests create many tables from 127.0.0.1: the quota is raised (test_quotas sets its own)
    values["tables_per_address"] = 1_000_000
    # no spacing of the group commits (``serve`` spaces them by 10 ms while busy): a test's
    # moves come one after another, and each could wait up to the spacing for its commit
    # (test_committer tests it; the subprocess servers run with the default)
    values["commit_spacing_ms"] = 0
    values.update(settings)
    port = free_port()
    values.setdefault("port", port)  # its default public origin: http://127.0.0.1:<port>
    config_settings = Settings(**values)
    app = create_app(config_settings)
    server = uvicorn.Server(uvicorn_config(app, config_settings, port=port))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.01)
    try:
        yield LiveServer(f"http://127.0.0.1:{port}", config_settings, app, thread, server)
    finally:
        server.should_exit = True
        thread.join(10)


def open_socket(url: str, **options: Any) -> ClientConnection:
    """A direct (not context-managed) client connection, on old and new websockets."""
    options = {"open_timeout": 30, "max_size": 2**22, "proxy": None, **options}
    try:
        return connect(url, legacy=True, **options)
    except TypeError:  # websockets before 16 has no ``legacy`` flag
        return connect(url, **options)


@dataclass
class Client:
    """A WebSocket client at a table that records every frame it receives."""

    ws: ClientConnection
    frames: list[dict[str, Any]] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)

    @classmethod
    def open(cls, server: LiveServer, table_id: str, token: str | None = None,
             invite: str | None = None, hello: bool = True, protocol: int = 2,
             **options: Any) -> Client:
        """Connect; with ``hello``, send it and wait for ``welcome`` and the first state."""
        options.setdefault("origin", server.base)  # the page's own origin, as a browser
        ws = open_socket(f"{server.ws_base}/ws/tables/{table_id}", **options)
        client = cls(ws)
        if hello:
            client.send({"type": "hello", "protocol": protocol, "token": token,
                         "invite": invite})
            client.wait(lambda m: m["type"] == "welcome")
            client.wait(lambda m: m["type"] == "state")
        return client

    def send(self, message: dict[str, Any] | str) -> None:
        """Send a message (a dict as JSON, or raw text)."""
        self.ws.send(message if isinstance(message, str) else json.dumps(message))

    def recv(self, timeout: float = 30) -> dict[str, Any]:
        """The next message."""
        text = self.ws.recv(timeout=timeout)
        assert isinstance(text, str)
        self.texts.append(text)
        message = json.loads(text)
        self.frames.append(message)
        if message["type"] == "delta":  # protocol 3: the state it makes follows it in frames
            state = apply_delta(self.state, message)
            if "ack" in message:
                state = {"type": "state", "ack": message["ack"], **state}
            self.frames.append(state)
            return dict(state)
        return dict(message)

    def wait(self, predicate: Callable[[dict[str, Any]], bool],
             timeout: float = 30) -> dict[str, Any]:
        """Read until a message matches (the timeout only matters when a test fails)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no matching message arrived")
            message = self.recv(left)
            if predicate(message):
                return message

    def playable(self, timeout: float = 30) -> dict[str, Any]:
        """The latest state once it offers this seat legal actions."""
        while True:
            with contextlib.suppress(TimeoutError):
                while True:  # read what has already arrived
                    self.recv(0.05)
            if self.state["legal"]:
                return self.state
            self.wait(lambda m: m["type"] == "state", timeout)

    def answer(self, timeout: float = 30) -> dict[str, Any]:
        """Read until the answer to an action: the ``state`` that acknowledges it (``"ack"``),
        an ``error``, or the ``ack`` of an action sent again."""
        return self.wait(is_answer, timeout)

    def reach(self, version: int, timeout: float = 30) -> dict[str, Any]:
        """The latest state once it is at least at ``version`` (it may have arrived already)."""
        latest = next((m for m in reversed(self.frames) if m["type"] == "state"), None)
        if latest is not None and latest["version"] >= version:
            return latest
        return self.wait(is_state(version), timeout)

    @property
    def state(self) -> dict[str, Any]:
        """The latest state received."""
        return next(m for m in reversed(self.frames) if m["type"] == "state")

    def close(self) -> None:
        """Close the connection."""
        self.ws.close()


def is_state(version: int | None = None) -> Callable[[dict[str, Any]], bool]:
    """A predicate: a state (at least at ``version``)."""
    return lambda m: m["type"] == "state" and (version is None or m["version"] >= version)


def dealt(message: dict[str, Any]) -> bool:
    """A state of a match with a hand dealt."""
    return message["type"] == "state" and bool(message.get("view")) \
        and message["view"]["hand_number"] >= 1


def resign_once_dealt(client: Client, timeout: float = 30) -> None:
    """Resign this seat's match once it has a hand dealt: a resign before the first deal is
    refused (``no_hand``), and a tournament's table deals once both players are there and
    its driver started the match, a moment after the second one connects."""
    if not dealt(client.state):
        client.wait(dealt, timeout)
    client.send({"type": "resign"})


def is_answer(message: dict[str, Any]) -> bool:
    """The answer to an action: an ``error``, an ``ack`` (an action sent again), or the
    ``state`` that acknowledges it."""
    return message["type"] in ("ack", "error") or (message["type"] == "state"
                                                    and "ack" in message)


def table_at(stored: Any, version: int) -> GameTable:
    """The table replayed up to (and including) ``version``."""
    events = [e for e in stored.events if e.version <= version]
    table = GameTable.from_stored(dataclasses.replace(stored, events=events))
    table.version = version
    return table


def hidden_cards(hand: Hand, seat: int | None) -> set[int]:
    """Cards ``seat`` may not know in ``hand``: the stock, and the others' unrevealed cards
    other than those they took from the discard pile."""
    hidden = set(hand.stock)
    if hand.knock is None:
        for other in range(hand.players):
            if other != seat:
                mask = hand.hands[other] & ~hand.known[other]
                hidden |= {c for c in range(52) if mask >> c & 1}
    if seat is not None:
        for event in hand.seat_logs[seat]:
            if event.card is not None:
                hidden.discard(event.card)
    return hidden


def cards_in(value: Any) -> set[int]:
    """Every card named in a JSON value."""
    return {parse_card(rank + suit) for rank, suit in CARD_RE.findall(json.dumps(value))}


def check_frames(server: LiveServer, table_id: str, frames: list[dict[str, Any]],
                 seat: int | None) -> int:
    """Check every state frame a recipient got: its view is exactly the engine's view of that
    version for that seat, and nothing in it names a card the seat may not know; a protocol-3
    ``delta`` names none either (the state the client made of it follows it in ``frames``
    and is checked as a state). Returns how many states were checked."""
    from ginrummy.views import view

    checked = 0
    stored = server.stored_table(table_id)
    for frame in frames:
        if frame["type"] == "delta":  # protocol 3: what it names, at its version
            table = table_at(stored, frame["version"])
            if table.match is not None and table.match.hands:
                leaked = cards_in(frame) & hidden_cards(table.match.hand, seat)
                assert not leaked, f"version {frame['version']}: seat {seat}'s delta " \
                    f"names hidden cards {sorted(leaked)}"
        if frame["type"] != "state":
            assert "deck" not in json.dumps(frame)
            continue
        assert frame["seat"] == seat
        table = table_at(stored, frame["version"])
        if table.match is None or not table.match.hands:
            assert frame["view"] is None
            continue
        expected = view(table.match, seat).to_dict()
        assert frame["view"] == expected, f"version {frame['version']}: view differs"
        hand = table.match.hand
        secret = hidden_cards(hand, seat)
        shown = cards_in({"view": frame["view"], "hints": frame["hints"],
                          "legal": frame["legal"], "sheet": frame["sheet"]})
        assert not (shown & secret), f"version {frame['version']}: seat {seat} was shown " \
            f"hidden cards {sorted(shown & secret)}"
        if seat is None:
            assert frame["hints"] is None and frame["legal"] == []
        checked += 1
    return checked


def until(check: Callable[[], Any], timeout: float = 30) -> Any:
    """Wait for ``check()`` to return something true and return that value (the timeout only
    matters when a test fails: it then raises AssertionError)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("the condition never held")
        time.sleep(0.02)


class AccountPush:
    """An account's push socket (``/ws/account``) at one process, recording what arrives."""

    def __init__(self, base: str, cookie: str) -> None:
        self.ws = open_socket(f"{base.replace('http://', 'ws://')}/ws/account", origin=base,
                              additional_headers={"Cookie": cookie})
        self.frames: list[dict[str, Any]] = []
        self.wait(lambda m: m["type"] == "hello")

    def wait(self, predicate: Callable[[dict[str, Any]], bool],
             timeout: float = 20) -> dict[str, Any]:
        """The first message (already received or arriving) that matches."""
        for seen in self.frames:
            if predicate(seen):
                self.frames.remove(seen)
                return seen
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no matching push message arrived; got {self.frames}")
            message: dict[str, Any] = json.loads(self.ws.recv(timeout=left))
            if predicate(message):
                return message
            self.frames.append(message)

    def close(self) -> None:
        self.ws.close()
