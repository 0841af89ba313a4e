"""Real ``ginrummy serve`` processes on one PostgreSQL schema and one Redis prefix, and
clients that play a seat across them (issue 14: the process tests and the cluster benchmark).

:class:`Cluster` starts N server processes on free ports (a migrated database first, so that
they never race to migrate it), waits for each one's ``/readyz``, signals any of them
(SIGKILL, SIGTERM, SIGSTOP, SIGCONT), restarts one on its port, tells which process owns a
table (its lease in Redis names the owner's pid) and always cleans up; each process logs to a
file of its own, and :meth:`Cluster.logs` gives their tails for a failure's report.

:class:`SeatPlayer` plays one seat over a WebSocket as the web client does: it keeps the id
of every action it got an acknowledgement for (``acked``), and when its socket drops it backs
off 0.5 s, reconnects to the next process, says ``hello`` again and resends the action still
unacknowledged with the same id (docs/protocol.md, "Order and reconnection"; the server plays
it once). Both are importable by the tests and by ``benchmarks/load_cluster.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

RANKS = "A23456789TJQK"
READY_TIMEOUT = 120.0
"""Longest wait for a process's ``/readyz`` (a loaded 2-core machine starts Python slowly)."""


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cluster_missing() -> str | None:
    """Why this checkout cannot run several processes yet (``None``: it can): ``serve``
    needs the ``redis`` setting, table ownership (``cluster.node``) and the relay of frames
    between processes (``http.bridge``) of issue 14."""
    import dataclasses
    import importlib.util

    from ginrummy.server import Settings

    if "redis" not in {f.name for f in dataclasses.fields(Settings)}:
        return "ginrummy serve has no --redis setting (issue 14 part A)"
    for module, part in (("cluster.node", "A"), ("http.bridge", "B")):
        if importlib.util.find_spec(f"ginrummy.server.{module}") is None:
            return f"ginrummy.server.{module} is missing (issue 14 part {part})"
    return None


@dataclass
class ServerProc:
    """One ``ginrummy serve`` process of a cluster (restarted on the same port)."""

    index: int
    port: int
    log_path: Path
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0
    stopped: bool = False
    """SIGSTOPped and not continued yet."""

    @property
    def url(self) -> str:
        """Its HTTP base URL."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        """Its process id while it runs."""
        return self.process.pid if self.alive else None  # type: ignore[union-attr]

    @property
    def alive(self) -> bool:
        """Started and not exited (a stopped process is alive)."""
        return self.process is not None and self.process.poll() is None


class Cluster:
    """N ``ginrummy serve`` processes sharing one database and one Redis key prefix.

    ``redis`` ``None`` runs them without Redis (one process only makes sense then).
    ``env`` adds environment variables (``GINRUMMY_*`` settings), ``args`` command-line
    options of ``serve``. Use it as a context manager: every process is killed on exit.
    """

    def __init__(self, count: int, db: str, folder: Path, *, redis: str | None = None,
                 prefix: str | None = None, env: dict[str, str] | None = None,
                 args: Sequence[str] = (), log_level: str = "info") -> None:
        if count < 1:
            raise ValueError(f"a cluster needs at least one process, not {count}")
        self.db = db
        self.folder = folder
        self.redis = redis
        self.prefix = prefix
        self.args = list(args)
        self.log_level = log_level
        folder.mkdir(parents=True, exist_ok=True)
        self.procs = [ServerProc(i, free_port(), folder / f"serve-{i}.log")
                      for i in range(count)]
        origins = ",".join(p.url for p in self.procs)
        self.env = {
            **os.environ,
            # every client is 127.0.0.1: the per-address quotas are raised
            "GINRUMMY_TABLES_PER_ADDRESS": "1000000",
            "GINRUMMY_CONNECTIONS_PER_ADDRESS": "1000000",
            "GINRUMMY_MAX_CONNECTIONS": "1000000",
            "GINRUMMY_PUBLIC_ORIGINS": origins,
            "GINRUMMY_LOG_FORMAT": "text",
            **({"GINRUMMY_REDIS": redis} if redis else {}),
            **({"GINRUMMY_REDIS_PREFIX": prefix} if prefix else {}),
            **(env or {}),
        }
        self._redis_client: Any = None

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def migrate(self) -> None:
        """Create the database's tables before any process starts (they would race)."""
        from ginrummy.storage import migrate, open_engine

        engine = open_engine(self.db)
        try:
            migrate(engine)
        finally:
            engine.dispose()

    def command(self, proc: ServerProc) -> list[str]:
        """The command line of one process."""
        return [sys.executable, "-m", "ginrummy.cli.main", "serve", "--port", str(proc.port),
                "--db", self.db, "--log-level", self.log_level, *self.args]

    def launch(self, index: int) -> ServerProc:
        """Start process ``index`` (on its port) without waiting for it."""
        proc = self.procs[index]
        if proc.alive:
            raise RuntimeError(f"process {index} (pid {proc.pid}) is still running")
        with proc.log_path.open("ab") as log:
            log.write(f"\n===== start {proc.starts + 1} at {time.time():.3f}\n".encode())
            log.flush()
            proc.process = subprocess.Popen(self.command(proc), stdout=log,
                                            stderr=subprocess.STDOUT, env=self.env,
                                            cwd=self.folder)
        proc.starts += 1
        proc.stopped = False
        return proc

    def wait_ready(self, index: int, timeout: float = READY_TIMEOUT) -> None:
        """Wait until process ``index`` answers ``/readyz`` with 200."""
        proc = self.procs[index]
        deadline = time.monotonic() + timeout
        while True:
            if proc.process is None or proc.process.poll() is not None:
                code = None if proc.process is None else proc.process.returncode
                raise RuntimeError(f"process {index} exited at start-up (code {code}):\n"
                                   + self.tail(index))
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{proc.url}/readyz", timeout=2).status_code == 200:
                    return
            if time.monotonic() > deadline:
                raise RuntimeError(f"process {index} not ready within {timeout:g} s:\n"
                                   + self.tail(index))
            time.sleep(0.1)

    def start(self, index: int | None = None) -> None:
        """Start one process (``index``) or all of them, and wait until they are ready."""
        indexes = range(len(self.procs)) if index is None else [index]
        for i in indexes:
            self.launch(i)
        for i in indexes:
            self.wait_ready(i)

    def signal(self, index: int, sig: int) -> int:
        """Send ``sig`` to process ``index``; its pid."""
        proc = self.procs[index]
        if not proc.alive or proc.process is None:
            raise RuntimeError(f"process {index} is not running")
        proc.process.send_signal(sig)
        if sig == signal.SIGSTOP:
            proc.stopped = True
        elif sig == signal.SIGCONT:
            proc.stopped = False
        return proc.process.pid

    def kill(self, index: int) -> None:
        """SIGKILL process ``index`` (no shutdown code runs) and reap it."""
        proc = self.procs[index]
        if proc.process is not None and proc.process.poll() is None:
            proc.process.send_signal(signal.SIGKILL)
            proc.process.wait(30)
        proc.stopped = False

    def terminate(self, index: int, timeout: float = 30) -> int:
        """SIGTERM process ``index`` (graceful shutdown) and wait for it; its exit code."""
        proc = self.procs[index]
        if proc.process is None:
            raise RuntimeError(f"process {index} was never started")
        proc.process.send_signal(signal.SIGTERM)
        return proc.process.wait(timeout)

    def close(self) -> None:
        """Kill every process (stopped ones too) and close the Redis client."""
        for i in range(len(self.procs)):
            with contextlib.suppress(Exception):
                self.kill(i)
        if self._redis_client is not None:
            with contextlib.suppress(Exception):
                self._redis_client.close()

    # ------------------------------------------------------------------ inspection
    @property
    def urls(self) -> list[str]:
        """Every process's base URL (by index)."""
        return [p.url for p in self.procs]

    def index_of_pid(self, pid: int) -> int | None:
        """The index of the running process with this pid."""
        return next((p.index for p in self.procs if p.alive and p.pid == pid), None)

    def redis_client(self) -> Any:
        """A synchronous Redis client (made once)."""
        if self.redis is None:
            raise RuntimeError("this cluster runs without Redis")
        if self._redis_client is None:
            import redis

            self._redis_client = redis.Redis.from_url(self.redis)
        return self._redis_client

    def lease(self, table_id: str) -> tuple[int, int] | None:
        """(token, owner pid) of the table's lease in Redis, or ``None`` when nobody holds
        it. The owner id ends with ``:<pid>`` (``cluster.lease.make_owner_id``)."""
        from ginrummy.server.cluster.lease import PREFIX, table_key

        raw = self.redis_client().get(table_key(table_id, "lease", self.prefix or PREFIX))
        if raw is None:
            return None
        text = raw.decode() if isinstance(raw, bytes) else str(raw)
        token, _, owner = text.partition(":")
        return int(token), int(owner.rsplit(":", 1)[1])

    def owner(self, table_id: str) -> int | None:
        """The index of the process holding the table's lease (``None``: nobody, or a
        process that is not ours or no longer running)."""
        lease = self.lease(table_id)
        return None if lease is None else self.index_of_pid(lease[1])

    def tail(self, index: int, chars: int = 4000) -> str:
        """The end of process ``index``'s log."""
        path = self.procs[index].log_path
        if not path.exists():
            return "(no log)"
        return path.read_text(errors="replace")[-chars:]

    def logs(self, chars: int = 4000) -> str:
        """The end of every process's log, for a failure's report."""
        return "\n".join(f"----- process {p.index} (port {p.port}, {p.starts} start(s)) "
                         f"{p.log_path}\n{self.tail(p.index, chars)}" for p in self.procs)


@contextlib.contextmanager
def printed_logs_on_failure(cluster: Cluster) -> Iterator[None]:
    """Print every process's log tail when the block raises (pytest shows it)."""
    try:
        yield
    except BaseException:
        print(cluster.logs(), file=sys.stderr)
        raise


# ---------------------------------------------------------------------- tables
def open_table(url: str, *, nickname: str = "Ann", other: str = "Bob",
               options: dict[str, Any] | None = None,
               clock_seconds: float = 0) -> tuple[str, dict[int, str]]:
    """Create a two-player table of guests through process ``url`` and seat a second
    guest: (table id, seat -> token)."""
    body: dict[str, Any] = {"nickname": nickname, "preset": "classic",
                            "clock_seconds": clock_seconds, "public": True}
    if options:
        body["options"] = options
    with httpx.Client(base_url=url, headers={"Origin": url}, timeout=30) as http:
        created = http.post("/api/tables", json=body)
        if created.status_code != 201:
            raise RuntimeError(f"POST /api/tables at {url}: {created.status_code} "
                               f"{created.text[:300]}")
        table_id = str(created.json()["table_id"])
        joined = http.post(f"/api/tables/{table_id}/join", json={"nickname": other})
        if joined.status_code != 200:
            raise RuntimeError(f"join {table_id} at {url}: {joined.status_code} "
                               f"{joined.text[:300]}")
    return table_id, {0: str(created.json()["token"]), 1: str(joined.json()["token"])}


def choose_action(legal: Sequence[str], hints: dict[str, Any] | None,
                  rng: random.Random) -> str:
    """A simple legal choice: gin, knock or the proposed layoff first; pass the first-turn
    offer; draw from the stock; discard the unmatched card with the most deadwood."""
    for prefix in ("gin", "knock", "layoff"):
        for action in legal:
            if action.startswith(prefix):
                return action
    for plain in ("pass", "stock"):
        if plain in legal:
            return plain
    discards = [a for a in legal if a.startswith("discard ")]
    if discards:
        unmatched = set((hints or {}).get("unmatched") or [])
        preferred = [a for a in discards if a.split()[1] in unmatched] or discards
        return max(preferred, key=lambda a: (min(RANKS.find(a.split()[1][0]) + 1, 10),
                                             rng.random()))
    return rng.choice(list(legal))


def public_part(state: dict[str, Any]) -> tuple[Any, ...]:
    """What every seat's ``state`` of one version shows alike: the table's status, the
    phase, who moves, the top discard, the stock, the scores and the log's length."""
    view = state.get("view") or {}
    return (state["table"]["status"], view.get("phase"), view.get("to_move"),
            view.get("top_discard"), view.get("stock_size"), json.dumps(view.get("scores")),
            len(view.get("log") or []))


# ---------------------------------------------------------------------- a seat
@dataclass
class SeatStats:
    """What one seat saw: acknowledgements, reconnections and errors."""

    acked: dict[str, int] = field(default_factory=dict)
    """Action id -> the table version its acknowledgement named."""
    sent: int = 0
    resent: int = 0
    duplicates: int = 0
    """Resent actions the server had already played (``ack`` with ``duplicate``)."""
    connects: int = 0
    drops: int = 0
    ack_timeouts: int = 0
    """Actions left without an answer for ``ack_timeout`` on an open socket (it is closed
    and the client reconnects)."""
    errors: list[str] = field(default_factory=list)
    states: dict[int, tuple[Any, ...]] = field(default_factory=dict)
    """Version -> :func:`public_part` of every state received."""
    closes: list[str] = field(default_factory=list)
    """Close codes (or connect failures) of the dropped sockets."""
    reasons: list[str] = field(default_factory=list)
    """The close reasons the server gave, when it gave one."""


class SeatPlayer:
    """One guest seat played over WebSockets against any process of a cluster.

    ``urls()`` gives the processes' base URLs; the seat starts at index ``first`` and moves
    to the next one after each drop. Every state that offers it a move is answered after a
    think time drawn from ``think``; while ``paused`` it sends nothing new.
    """

    def __init__(self, table_id: str, seat: int, token: str,
                 urls: Callable[[], Sequence[str]], first: int, *, seed: int = 0,
                 think: tuple[float, float] = (0.02, 0.15), backoff: float = 0.5,
                 ack_timeout: float = 15.0, ping_interval: float = 1.0,
                 ping_timeout: float = 2.0, prefix: str = "") -> None:
        self.table_id = table_id
        self.seat = seat
        self.token = token
        self.urls = urls
        self.at = first
        self.rng = random.Random(seed)
        self.think = think
        self.backoff = backoff
        self.ack_timeout = ack_timeout
        self.ping_interval = ping_interval
        self.ping_timeout = ping_timeout
        self.prefix = prefix or f"s{seat}-"
        self.stats = SeatStats()
        self.version = -1
        self.state: dict[str, Any] | None = None
        self.pending: dict[str, Any] | None = None
        """The action message sent and not acknowledged yet (resent after a reconnection)."""
        self.pending_since = 0.0
        self.counter = 0
        self.paused = False
        self.finished = asyncio.Event()
        self.changed = asyncio.Event()
        """Set at every state (a waiter clears it)."""
        self.url: str | None = None
        self.last_ack_at = 0.0
        self._ws: Any = None
        self._stop = False
        self._timer: asyncio.TimerHandle | None = None
        self._closing: asyncio.Future[None] | None = None
        self.last_sent: tuple[str, str | None, int] | None = None
        """The last message sent: its type, its action, the version it answered."""
        self.ready_sent = False
        """Whether this seat said "next" in the current pause between hands: a state made
        before the server read it still shows the seat not ready, and a client says it once,
        as the page's button does (the server ignores a "next" that crossed the deal)."""

    # ------------------------------------------------------------------ connection
    async def run(self) -> None:
        """Play until the table is over or :meth:`stop`; reconnect after every drop."""
        while not self._stop and not self.finished.is_set():
            urls = list(self.urls())
            base = urls[self.at % len(urls)]
            self.url = base
            try:
                await self._session(base)
            except (OSError, TimeoutError, websockets.InvalidHandshake,
                    websockets.InvalidURI) as exc:
                self.stats.closes.append(f"connect:{type(exc).__name__}")
            except websockets.ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd is not None else "none"
                self.stats.closes.append(f"closed:{code}")
                self.stats.reasons.append(exc.rcvd.reason if exc.rcvd is not None else "")
            finally:
                self._ws = None
            if self._stop or self.finished.is_set():
                break
            self.stats.drops += 1
            self.at += 1
            await asyncio.sleep(self.backoff)

    async def _session(self, base: str) -> None:
        ws_url = base.replace("http://", "ws://", 1) + f"/ws/tables/{self.table_id}"
        async with websockets.connect(ws_url, origin=base,  # type: ignore[arg-type]
                                      open_timeout=10, close_timeout=1,
                                      ping_interval=self.ping_interval,
                                      ping_timeout=self.ping_timeout,
                                      max_size=2**22) as ws:
            self._ws = ws
            self.stats.connects += 1
            self.ready_sent = False  # a new owner may not know it: the state will tell
            await ws.send(json.dumps({"type": "hello", "protocol": 2, "token": self.token}))
            resent = False
            watchdog = asyncio.create_task(self._watch(ws))
            try:
                async for raw in ws:
                    msg = json.loads(raw)
                    self._on_message(msg)
                    if not resent and msg.get("type") == "state" and self.pending:
                        # the first state after hello: resend what was never acknowledged
                        resent = True
                        if self.pending["id"] != msg.get("ack"):
                            self.stats.resent += 1
                            self.pending_since = time.monotonic()
                            await ws.send(json.dumps(self.pending))
                    elif msg.get("type") == "state":
                        resent = True
                    if self.finished.is_set() or self._stop:
                        await ws.close()
                        return
                self.stats.closes.append(f"closed:{ws.close_code}")
                self.stats.reasons.append(str(ws.close_reason or ""))
            finally:
                watchdog.cancel()

    async def _watch(self, ws: Any) -> None:
        """Close a socket on which an action waits longer than ``ack_timeout`` for its
        answer (the client then reconnects and resends it)."""
        while True:
            await asyncio.sleep(0.25)
            if self.pending and time.monotonic() - self.pending_since > self.ack_timeout:
                self.stats.ack_timeouts += 1
                self.pending_since = time.monotonic()
                await ws.close(code=4000, reason="no ack")
                return

    def stop(self) -> None:
        """Stop playing and close the socket."""
        self._stop = True
        if self._timer is not None:
            self._timer.cancel()
        if self._ws is not None:
            self._closing = asyncio.ensure_future(self._ws.close())

    # ------------------------------------------------------------------ messages
    def _on_message(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "state":
            if "ack" in msg:
                self._acked(str(msg["ack"]), int(msg["version"]))
            version = int(msg["version"])
            self.stats.states[version] = public_part(msg)
            if version >= self.version:
                self.version = version
                self.state = msg
                if msg.get("next_hand") is None:
                    self.ready_sent = False
            self.changed.set()
            if msg["table"]["status"] != "playing" and msg["table"]["status"] != "waiting":
                self.finished.set()
                return
            self._plan(msg)
        elif kind == "ack":
            if msg.get("duplicate"):
                self.stats.duplicates += 1
            self._acked(str(msg["id"]), int(msg["version"]))
            if self.state is not None and not self.finished.is_set():
                # the state after hello came while this action was pending: answer it now
                self._plan(self.state)
        elif kind == "error":
            code = str(msg.get("code"))
            seen = (self.state or {}).get("next_hand")  # what the seat knew when told
            self.stats.errors.append(f"{code}: {msg.get('message', '')} (last sent "
                                     f"{self.last_sent}, at version {self.version}, next "
                                     f"hand {seen})"[:300])
            if self.pending is not None and msg.get("id") == self.pending["id"]:
                self.pending = None  # refused: the next state offers a fresh move
                if self.state is not None:
                    self._plan(self.state)

    def _acked(self, action_id: str, version: int) -> None:
        self.stats.acked[action_id] = version
        self.last_ack_at = time.monotonic()
        if self.pending is not None and self.pending["id"] == action_id:
            self.pending = None

    def _plan(self, msg: dict[str, Any]) -> None:
        """Schedule this seat's answer to the latest state, if it has one to give."""
        if self.pending is not None or self._stop:
            return
        legal = msg.get("legal") or []
        next_hand = msg.get("next_hand")
        if legal:
            payload: dict[str, Any] = {"type": "action", "version": msg["version"],
                                       "action": choose_action(legal, msg.get("hints"),
                                                               self.rng)}
        elif next_hand is not None and self.seat not in (next_hand.get("ready") or []) \
                and not self.ready_sent:
            payload = {"type": "next"}
        else:
            return
        if self._timer is not None:
            self._timer.cancel()
        delay = self.rng.uniform(*self.think)
        version = int(msg["version"])
        self._timer = asyncio.get_running_loop().call_later(
            delay, lambda: asyncio.ensure_future(self._send(payload, version)))

    async def _send(self, payload: dict[str, Any], version: int) -> None:
        ws = self._ws
        if (ws is None or self._stop or self.paused or self.pending is not None
                or version != self.version):
            return
        if payload["type"] == "action":
            self.counter += 1
            payload = {**payload, "id": f"{self.prefix}{self.counter}"}
            self.pending = payload
            self.pending_since = time.monotonic()
            self.stats.sent += 1
        elif payload["type"] == "next":
            self.ready_sent = True
        self.last_sent = (str(payload["type"]), payload.get("action"), version)
        with contextlib.suppress(websockets.ConnectionClosed):
            await ws.send(json.dumps(payload))

    def resume(self) -> None:
        """Play again after :attr:`paused` (answers the latest state)."""
        self.paused = False
        if self.state is not None and not self.finished.is_set():
            self._plan(self.state)

    async def wait_version(self, version: int, timeout: float) -> None:
        """Wait until this seat has seen ``version`` (or the table ended)."""
        deadline = time.monotonic() + timeout
        while self.version < version and not self.finished.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"seat {self.seat} of {self.table_id} at version "
                                   f"{self.version}, not {version}, after {timeout:g} s")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)


# ---------------------------------------------------------------------- the database
class Database:
    """Reads of the cluster's database for the checks (one engine, kept open)."""

    def __init__(self, url: str) -> None:
        from ginrummy.storage import open_engine

        self.engine = open_engine(url)

    def close(self) -> None:
        """Close the engine's connections."""
        self.engine.dispose()

    def events(self, table_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
        """Every stored event of these tables, by table, in version order: version, kind,
        seat, source, client id and time."""
        from sqlalchemy import select

        from ginrummy.storage.repository import EVENTS

        found: dict[str, list[dict[str, Any]]] = {t: [] for t in table_ids}
        with self.engine.connect() as conn:
            query = (select(EVENTS.c.table_id, EVENTS.c.version, EVENTS.c.kind, EVENTS.c.seat,
                            EVENTS.c.source, EVENTS.c.client_id, EVENTS.c.at)
                     .where(EVENTS.c.table_id.in_(list(table_ids)))
                     .order_by(EVENTS.c.table_id, EVENTS.c.version))
            for row in conn.execute(query):
                found[str(row.table_id)].append(dict(row._mapping))
        return found

    def rows(self, table_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The ``game_tables`` row (status, version) and the ``table_owners`` row (token,
        owner) of each table."""
        from sqlalchemy import text

        rows: dict[str, dict[str, Any]] = {}
        with self.engine.connect() as conn:
            for table_id in table_ids:
                row = conn.execute(text("SELECT status, version FROM game_tables WHERE id = :t"),
                                   {"t": table_id}).one()
                owner = conn.execute(text("SELECT token, owner FROM table_owners "
                                          "WHERE table_id = :t"), {"t": table_id}).one_or_none()
                rows[table_id] = {"status": row.status, "version": row.version,
                                  "token": None if owner is None else owner.token,
                                  "owner": None if owner is None else owner.owner}
        return rows


def stored_events(db: str, table_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """:meth:`Database.events` on a database opened for the call."""
    database = Database(db)
    try:
        return database.events(table_ids)
    finally:
        database.close()


def table_rows(db: str, table_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """:meth:`Database.rows` on a database opened for the call."""
    database = Database(db)
    try:
        return database.rows(table_ids)
    finally:
        database.close()
